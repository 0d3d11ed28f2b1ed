import { AuthError } from "../errors/errors.ts";
import { orServerCall, SERVER_CALL, type RequestMeta } from "../kernel/request-meta.ts";
import type { ApiOf, AuthPlugin, PluginRegistry } from "../context/plugin.ts";
import { checkApiInput } from "./api-input.ts";
import { sweepBatchSize, sweepStore, type SweepOptions, type SweepReport } from "../sweep/sweep.ts";
import { AUDIT_LOG_PLUGIN_ID } from "../audit-log/index.ts";
import { API_KEY_PLUGIN_ID } from "../api-key/index.ts";
import type { EmailPasswordService, SignInInput, SignUpInput, SignUpResult } from "../email-password/index.ts";
import type { EmailVerificationService } from "../email-verification/index.ts";
import type { AuthContext } from "../context/context.ts";
import type { UserView, ValidatedSession } from "../session/session.ts";
import type { SignInOutcome } from "../session/sign-in-gate.ts";
import type { SessionListItem, SessionManagementService } from "../session-management/index.ts";
import type { AccountDeletionService, AccountService, UpdateUserInput } from "../account/index.ts";
import type { EmailOtpApi } from "../email-otp/index.ts";
import type { ApiKeyApi } from "../api-key/index.ts";
import type { JwtApi } from "../jwt/index.ts";
import type { AuditLogApi } from "../audit-log/index.ts";

/**
 * Server-side operations every installation has (no HTTP, trusted caller). A sign-in answers a `SignInOutcome`: the
 * session, or with `twoFactor()` the second step it needs first (`isChallenge` tells them apart).
 */
export interface BaseApi {
  signUp(input: SignUpInput, meta?: RequestMeta): Promise<SignUpResult>;
  signIn(input: SignInInput, meta?: RequestMeta): Promise<SignInOutcome>;
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
  verifyEmail(input: { email: string; token: string }, meta?: RequestMeta): Promise<SignInOutcome>;
  /**
   * The live sessions of the session behind `token` (its own marked `current`), or, for an admin acting on another
   * user, of `userId` (none marked current). Newest first; never a token or its hash.
   */
  listSessions(input: { token: string } | { userId: string }): Promise<{ sessions: SessionListItem[] }>;
  /** Revokes one session of the user behind `token`; 404 `SESSION_NOT_FOUND` for another user's or an unknown id. */
  revokeSession(input: { token: string; sessionId: string }, meta?: RequestMeta): Promise<{ success: true }>;
  /** Revokes every session of the user behind `token` except that one. */
  revokeOtherSessions(input: { token: string }, meta?: RequestMeta): Promise<{ revoked: number }>;
  /** Revokes every session of the user behind `token` (that one too), or of `userId` (an admin acting on a user). */
  revokeSessions(input: { token: string } | { userId: string }, meta?: RequestMeta): Promise<{ revoked: number }>;
  /** Updates a user's profile; may change the username even without `allowUsernameChange`. NOT_FOUND for unknown ids. */
  updateUser(userId: string, input: UpdateUserInput, meta?: RequestMeta): Promise<UserView>;
  /** Deletes a user and every auth-owned row of theirs (audit rows stay); false when there was no such user. */
  deleteUser(userId: string, meta?: RequestMeta): Promise<boolean>;
  /**
   * Deletes every row past its life, in batches: ended counters, expired sessions, codes and tokens, expired API
   * keys (with `apiKeys()`), audit rows past `auditLog({ retention })`, and users unverified for
   * `emailVerification.deleteUnverifiedAfter` (when set). Run it on a schedule (docs/stores.md); `latchkey sweep`
   * does the same from a shell.
   */
  sweep(options?: SweepOptions): Promise<SweepReport>;
}

/**
 * Every bundled plugin's `auth.api` operations together (email OTP, API keys, JWT, audit log). `auth.api` is typed
 * from the plugins actually passed (see `AuthApi`); this is the union of all of them.
 */
export interface PluginApis extends EmailOtpApi, ApiKeyApi, JwtApi, AuditLogApi {}

type UnionToIntersection<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void ? I : never;

/**
 * `auth.api` for a list of plugins: `BaseApi` plus each plugin's `api`. A method of a plugin that is not in the
 * list is a compile error; untyped (JavaScript) callers get a NOT_FOUND rejection instead.
 *
 * @example
 * const auth = createAuth({ secret, database, baseUrl, plugins: [emailOtp(), apiKeys()] });
 * auth.api.createApiKey({ userId }); // ok
 * auth.api.signJwt(session); // compile error: jwt() is not installed
 */
export type AuthApi<P extends readonly AuthPlugin[] = readonly AuthPlugin[]> = BaseApi &
  UnionToIntersection<ApiOf<P[number]>>;

/** The services `auth.api` calls: those of the `AuthCore` being built (`createAuthCore` passes itself). */
interface ApiServices {
  ctx: AuthContext;
  emailPassword: EmailPasswordService;
  emailVerification: EmailVerificationService;
  account: AccountService;
  accountDeletion: AccountDeletionService;
  sessionManagement: SessionManagementService;
  plugins: PluginRegistry;
}

/** Every method of `api` behind `checkApiInput`: bad ids reject with 400 INVALID_REQUEST before any work. */
function validated<A extends object>(api: A): A {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(api)) {
    out[name] =
      typeof value === "function"
        ? (...args: unknown[]) => {
            try {
              checkApiInput(name, args);
            } catch (error) {
              return Promise.reject(error);
            }
            return value(...args);
          }
        : value;
  }
  return out as A;
}

export function buildApi<P extends readonly AuthPlugin[]>(
  core: ApiServices,
  pluginApis: Record<string, unknown>,
): AuthApi<P> {
  // The session behind a token, or 401 INVALID_CREDENTIALS (as over HTTP).
  const sessionOf = async (token: string): Promise<ValidatedSession> => {
    const s = typeof token === "string" ? await core.ctx.sessions.validate(token) : null;
    if (!s) throw new AuthError("INVALID_CREDENTIALS", "Sign in first");
    return s;
  };
  const base: BaseApi = {
    signUp: (input, meta) => core.emailPassword.signUp(input, orServerCall(meta)),
    signIn: (input, meta) => core.emailPassword.signIn(input, orServerCall(meta)),
    signOut: (token, meta) => core.emailPassword.signOut(token, orServerCall(meta)),
    getSession: (token) => core.ctx.sessions.validate(token),
    createUser: (input, meta) => core.emailPassword.createUser(input, orServerCall(meta)),
    requestPasswordReset: (input, meta) => core.emailPassword.requestPasswordReset(input, orServerCall(meta)),
    resetPassword: (input, meta) => core.emailPassword.resetPassword(input, orServerCall(meta)),
    sendVerificationEmail: (input, meta) => core.emailVerification.send(input, orServerCall(meta)),
    verifyEmail: (input, meta) => core.emailVerification.verify(input, orServerCall(meta)),
    listSessions: async (input) => {
      if ("userId" in input) return core.sessionManagement.list(input.userId, null);
      const s = await sessionOf(input.token);
      return core.sessionManagement.list(s.userRecord.id, s.session.id);
    },
    revokeSession: async (input, meta) => {
      const s = await sessionOf(input.token);
      return core.sessionManagement.revoke(s.userRecord.id, input.sessionId, orServerCall(meta));
    },
    revokeOtherSessions: async (input, meta) => {
      const s = await sessionOf(input.token);
      return core.sessionManagement.revokeAll(
        s.userRecord.id,
        s.session.id,
        "revoke-other-sessions",
        orServerCall(meta),
      );
    },
    revokeSessions: async (input, meta) => {
      if ("userId" in input)
        return core.sessionManagement.revokeAll(input.userId, null, "admin-revoke-sessions", orServerCall(meta));
      const s = await sessionOf(input.token);
      return core.sessionManagement.revokeAll(s.userRecord.id, null, "revoke-sessions", orServerCall(meta));
    },
    updateUser: async (userId, input, meta) => {
      const user = await core.ctx.store.users.findById(userId);
      if (!user) throw new AuthError("NOT_FOUND", "No such user");
      return core.account.updateUser(user, input, orServerCall(meta), { trusted: true });
    },
    deleteUser: async (userId, meta) => {
      const user = await core.ctx.store.users.findById(userId);
      return user ? core.accountDeletion.remove(user, orServerCall(meta)) : false;
    },
    sweep: async (options = {}) => {
      const { clock, config, store } = core.ctx;
      const batchSize = sweepBatchSize(options.batchSize, store.sweepBatchSize);
      const now = clock.now();
      const retentionMs = core.plugins.get(AUDIT_LOG_PLUGIN_ID)?.options.retentionMs ?? null;
      const unverifiedMs = config.emailVerification.deleteUnverifiedAfterMs;
      const apiKeys = core.plugins.get(API_KEY_PLUGIN_ID)?.service;
      return sweepStore(store, {
        now: new Date(now),
        batchSize,
        auditBefore: retentionMs === null ? null : new Date(now - retentionMs),
        unverifiedBefore: unverifiedMs === null ? null : new Date(now - unverifiedMs),
        // Through the service, so each removed key is announced (ApiKeyRevoked) as the HTTP sweep does.
        deleteExpiredApiKeys: apiKeys
          ? async (_now, limit) => (await apiKeys.deleteExpired(null, SERVER_CALL, limit)).deleted
          : undefined,
        clearExpiredRerolls: apiKeys
          ? async (_now, limit) => (await apiKeys.deleteExpiredRerolls(limit)).cleared
          : undefined,
        // Through account deletion: lockout counters of the address go too, and AccountDeleted is emitted.
        deleteUser: (user) => core.accountDeletion.remove(user, SERVER_CALL),
      });
    },
  };
  const api = validated({ ...pluginApis, ...base } as AuthApi<P>);
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
