import { AuthConfigError, AuthError } from "../errors/errors.ts";
import { normalizeUsername } from "../kernel/validation.ts";
import type { RequestMeta } from "../kernel/request-meta.ts";
import type { UserRecord } from "../ports/records.ts";
import { toUserView, type UserView } from "../session/session.ts";

/** Every path that inserts a user; the `path` of `beforeUserCreated`'s context. */
export type UserCreationPath = "sign-up-email" | "sign-in-email-otp" | "create-user";

/** Every path that creates a session; the `path` of `beforeSignIn`'s context. */
export type SignInPath = "sign-up-email" | "sign-in-email" | "sign-in-email-otp" | "verify-email";

/** What a hook learns about the request besides the user. */
export interface HookContext<Path extends string> {
  path: Path;
  /** The client IP and user agent of the request; null for trusted `auth.api` calls without meta. */
  ip: string | null;
  userAgent: string | null;
}

/** The user about to be inserted. */
export interface UserDraft {
  email: string;
  emailVerified: boolean;
  name: string | null;
  image: string | null;
  username: string | null;
  metadata: Record<string, unknown>;
}

/** What `beforeUserCreated` may change before the insert. */
export interface UserAmendment {
  name?: string | null;
  image?: string | null;
  username?: string | null;
  metadata?: Record<string, unknown>;
}

/**
 * `createAuth({ hooks })`: app code that may refuse a sign-up or a sign-in. Both optional and async.
 *
 * @example
 * hooks: {
 *   beforeUserCreated: async (user) => user.email.endsWith("@acme.example") ? undefined : false,
 *   beforeSignIn: async (user) => user.metadata.banned !== true,
 * }
 */
export interface AuthHooks {
  /**
   * Runs on every path that creates a user (password sign-up, OTP sign-in of a new email, `auth.api.createUser`)
   * before anything is written. `false` refuses with 403 `SIGN_UP_REJECTED`; an object amends `name`, `image`,
   * `username`, `metadata`; nothing accepts. A thrown `AuthError` is the answer; any other throw is a 500.
   */
  beforeUserCreated?: (
    user: UserDraft,
    context: HookContext<UserCreationPath>,
  ) => Awaitable<UserAmendment | boolean | undefined>;
  /**
   * Runs before any session is created (password, OTP, verification link, sign-up that signs in), after the
   * credential was checked. `false` refuses with 403 `SIGN_IN_REJECTED`; the attempt is not a failed credential.
   */
  beforeSignIn?: (user: UserView, context: HookContext<SignInPath>) => Awaitable<boolean | undefined>;
}

/** `T` now or later; `void` so that a function returning nothing (`async () => {}`) is a valid hook. */
// biome-ignore lint/suspicious/noConfusingVoidType: a hook or check that returns nothing accepts; only void types that.
type Awaitable<T> = T | void | Promise<T | void>;

/** The option keys of `hooks` (closed like every option group). */
export const HOOK_OPTION_SHAPE = { beforeUserCreated: true, beforeSignIn: true } as const;

/** Checks `createAuth({ hooks })`: an object of functions. */
export function validateHooks(hooks: AuthHooks | undefined): AuthHooks {
  if (hooks === undefined) return {};
  if (hooks === null || typeof hooks !== "object") throw new AuthConfigError("hooks", "must be an object");
  for (const name of Object.keys(HOOK_OPTION_SHAPE) as Array<keyof AuthHooks>) {
    if (hooks[name] !== undefined && typeof hooks[name] !== "function")
      throw new AuthConfigError(`hooks.${name}`, "must be a function");
  }
  return hooks;
}

/** Runs an app hook: an `AuthError` passes through; any other throw becomes a message-free 500 (logged once). */
async function run<T>(name: keyof AuthHooks, call: () => Promise<T> | T): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof AuthError) throw error;
    throw new AuthError("INTERNAL_ERROR", `The ${name} hook failed`, { cause: error });
  }
}

function contextOf<P extends string>(path: P, meta: RequestMeta): HookContext<P> {
  return { path, ip: meta.ip, userAgent: meta.userAgent };
}

/**
 * Calls the configured hooks at the points every user- and session-creating path goes through.
 *
 * @example
 * const user = await ctx.hooks.beforeUserCreated(draft, "sign-up-email", meta);
 * await ctx.hooks.beforeSignIn(user, "sign-up-email", meta);
 */
export class HookRunner {
  constructor(private readonly hooks: AuthHooks) {}

  /** The user to insert, amended by the hook; 403 `SIGN_UP_REJECTED` when it says no. */
  async beforeUserCreated<U extends UserRecord>(user: U, path: UserCreationPath, meta: RequestMeta): Promise<U> {
    const hook = this.hooks.beforeUserCreated;
    if (!hook) return user;
    const draft: UserDraft = {
      email: user.email,
      emailVerified: user.emailVerified,
      name: user.name,
      image: user.image,
      username: user.username,
      metadata: structuredClone(user.metadata),
    };
    const answer = await run("beforeUserCreated", () => hook(draft, contextOf(path, meta)));
    if (answer === false) throw new AuthError("SIGN_UP_REJECTED", "Sign-up is not allowed");
    if (answer === true || answer === undefined || answer === null || typeof answer !== "object") return user;
    return { ...user, ...amendment(answer) };
  }

  /** 403 `SIGN_IN_REJECTED` when the hook says no. */
  async beforeSignIn(user: UserRecord, path: SignInPath, meta: RequestMeta): Promise<void> {
    const hook = this.hooks.beforeSignIn;
    if (!hook) return;
    const answer = await run("beforeSignIn", () => hook(toUserView(user), contextOf(path, meta)));
    if (answer === false) throw new AuthError("SIGN_IN_REJECTED", "Sign-in is not allowed");
  }
}

/** The fields an amendment may set, checked like the profile fields of the HTTP API (a bad one is a hook bug: 500). */
function amendment(answer: UserAmendment): Partial<UserRecord> {
  const out: Partial<UserRecord> = {};
  const text = (value: unknown, field: string, max: number): string | null => {
    if (value === null) return null;
    if (typeof value !== "string" || value.length > max)
      throw new AuthError("INTERNAL_ERROR", `The beforeUserCreated hook returned an invalid ${field}`);
    return value;
  };
  if (answer.name !== undefined) out.name = text(answer.name, "name", 256);
  if (answer.image !== undefined) out.image = text(answer.image, "image", 2048);
  if (answer.username !== undefined) {
    const username = text(answer.username, "username", 64);
    out.username = username === null ? null : normalizeUsername(username);
  }
  if (answer.metadata !== undefined) {
    const { metadata } = answer;
    if (metadata === null || typeof metadata !== "object" || Array.isArray(metadata))
      throw new AuthError("INTERNAL_ERROR", "The beforeUserCreated hook returned an invalid metadata");
    out.metadata = structuredClone(metadata);
  }
  return out;
}
