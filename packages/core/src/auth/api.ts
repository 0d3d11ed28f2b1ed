import { AuthError } from "../errors/errors.ts";
import { SERVER_CALL, type RequestMeta } from "./request-meta.ts";
import type { AuthCore } from "./auth-core.ts";
import type { SignInInput, SignUpInput, SignUpResult } from "../email-password/email-password.ts";
import type { SignInResult, UserView, ValidatedSession } from "../session/session.ts";
import type { UpdateUserInput } from "../account/account.ts";
import type { EmailOtpApi } from "../email-otp/plugin.ts";
import type { ApiKeyApi } from "../api-key/api.ts";
import type { JwtApi } from "../jwt/jwt.ts";
import type { AuditLogApi } from "../audit-log/audit-log.ts";

/** Server-side operations every installation has (no HTTP, trusted caller). */
export interface BaseApi {
  signUp(input: SignUpInput, meta?: RequestMeta): Promise<SignUpResult>;
  signIn(input: SignInInput, meta?: RequestMeta): Promise<SignInResult>;
  signOut(token: string, meta?: RequestMeta): Promise<void>;
  /** The session of a token (cookie value or Bearer token), or null. */
  getSession(token: string): Promise<ValidatedSession | null>;
  /** Creates a user without a session; the username stays optional even with `requireUsername`. */
  createUser(input: SignUpInput & { emailVerified?: boolean }, meta?: RequestMeta): Promise<UserView>;
  requestPasswordReset(
    input: { email: string; redirectTo?: string | null },
    meta?: RequestMeta,
  ): Promise<{ success: true }>;
  resetPassword(input: { token: string; newPassword: string }, meta?: RequestMeta): Promise<{ success: true }>;
  sendVerificationEmail(
    input: { email: string; callbackUrl?: string | null },
    meta?: RequestMeta,
  ): Promise<{ success: true }>;
  verifyEmail(input: { email: string; token: string }, meta?: RequestMeta): Promise<SignInResult>;
  /** Revokes every session of a user. */
  revokeSessions(userId: string, meta?: RequestMeta): Promise<number>;
  /** Updates a user's profile; may change the username even without `allowUsernameChange`. NOT_FOUND for unknown ids. */
  updateUser(userId: string, input: UpdateUserInput, meta?: RequestMeta): Promise<UserView>;
  /** Deletes a user and every auth-owned row of theirs (audit rows stay); false when there was no such user. */
  deleteUser(userId: string, meta?: RequestMeta): Promise<boolean>;
}

/**
 * Operations contributed by the features (email OTP, API keys, JWT, audit log); each plugin returns its methods as `api` from
 * its `init`. Calling a method of a feature that is not installed rejects with NOT_FOUND.
 */
export interface PluginApis extends EmailOtpApi, ApiKeyApi, JwtApi, AuditLogApi {}

export type AuthApi = BaseApi & PluginApis;

/** What a plugin's `init` may return so its operations join `auth.api`. */
export interface PluginWithApi {
  api?: Partial<Record<string, (...args: never[]) => unknown>>;
}

export function buildApi(core: AuthCore, pluginApis: Record<string, unknown>): AuthApi {
  const m = (meta?: RequestMeta) => meta ?? SERVER_CALL;
  const base: BaseApi = {
    signUp: (input, meta) => core.emailPassword.signUp(input, m(meta)),
    signIn: (input, meta) => core.emailPassword.signIn(input, m(meta)),
    signOut: (token, meta) => core.emailPassword.signOut(token, m(meta)),
    getSession: (token) => core.ctx.sessions.validate(token),
    createUser: (input, meta) => core.emailPassword.createUser(input, m(meta)),
    requestPasswordReset: (input, meta) => core.emailPassword.requestPasswordReset(input, m(meta)),
    resetPassword: (input, meta) => core.emailPassword.resetPassword(input, m(meta)),
    sendVerificationEmail: (input, meta) => core.emailVerification.send(input, m(meta)),
    verifyEmail: (input, meta) => core.emailVerification.verify(input, m(meta)),
    revokeSessions: async (userId, meta) => {
      const count = await core.ctx.sessions.revokeAll(userId);
      const at = new Date(core.ctx.clock.now());
      await core.events.emit("SessionRevoked", {
        userId,
        sessionId: null,
        reason: "server",
        count,
        at,
        ip: m(meta).ip,
        userAgent: m(meta).userAgent,
      });
      return count;
    },
    updateUser: async (userId, input, meta) => {
      const user = await core.ctx.store.users.findById(userId);
      if (!user) throw new AuthError("NOT_FOUND", "No such user");
      return core.account.updateUser(user, input, m(meta), { trusted: true });
    },
    deleteUser: async (userId, meta) => {
      const user = await core.ctx.store.users.findById(userId);
      return user ? core.accountDeletion.remove(user, m(meta)) : false;
    },
  };
  const api = { ...pluginApis, ...base } as AuthApi;
  return new Proxy(api, {
    get(target, name, receiver) {
      if (typeof name === "string" && !(name in target) && name !== "then") {
        return () =>
          Promise.reject(new AuthError("NOT_FOUND", `auth.api.${name} needs a plugin that is not installed`));
      }
      return Reflect.get(target, name, receiver);
    },
  });
}
