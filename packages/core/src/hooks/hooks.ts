import { AuthConfigError, AuthError, userBanned } from "../errors/errors.ts";
import { banInForce } from "../ports/ban.ts";
import type { Clock } from "../ports/clock.ts";
import { normalizeUsername } from "../kernel/validation.ts";
import type { RequestMeta } from "../kernel/request-meta.ts";
import type { UserRecord } from "../ports/records.ts";
import { toUserView, type UserView } from "../session/session.ts";
import { applySchema, optional, type InputOf } from "../config/schema.ts";

/** Every path that inserts a user; the `path` of `beforeUserCreated`'s context. */
export type UserCreationPath =
  | "sign-up-email"
  | "sign-in-email-otp"
  | "sign-in-magic-link"
  | "sign-in-social"
  | "sign-up-passkey"
  | "create-user";

/** Every path that creates a session; the `path` of `beforeSignIn`'s context. */
export type SignInPath =
  | "sign-up-email"
  | "sign-in-email"
  | "sign-in-email-otp"
  | "sign-in-magic-link"
  | "sign-in-social"
  | "sign-in-passkey"
  | "sign-up-passkey"
  | "verify-email";

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

/** `hooks.beforeUserCreated`: may refuse (`false`) or amend the user about to be inserted. */
export type BeforeUserCreated = (
  user: UserDraft,
  context: HookContext<UserCreationPath>,
) => Awaitable<UserAmendment | boolean | undefined>;

/** `hooks.beforeSignIn`: may refuse (`false`) the session about to be created. */
export type BeforeSignIn = (user: UserView, context: HookContext<SignInPath>) => Awaitable<boolean | undefined>;

/** `T` now or later; `void` so that a function returning nothing (`async () => {}`) is a valid hook. */
// biome-ignore lint/suspicious/noConfusingVoidType: a hook or check that returns nothing accepts; only void types that.
type Awaitable<T> = T | void | Promise<T | void>;

const isFunction = (value: unknown, field: string) => {
  if (typeof value !== "function") throw new AuthConfigError(field, "must be a function");
};

/** The one definition of `createAuth({ hooks })`: type, check, docs rows (docs/options.md). */
export const HOOKS_SCHEMA = {
  /**
   * `async (user, context)` before every user insert (password sign-up, OTP or magic-link sign-in of a new email,
   * `auth.api.createUser`): `false` refuses with 403 `SIGN_UP_REJECTED`, `{ name, image, username, metadata }`
   * amends the user; see [hooks.md](hooks.md)
   */
  beforeUserCreated: optional<BeforeUserCreated>({ check: isFunction }),
  /**
   * `async (user, context)` before every session is created (password, OTP, magic link, verification link, a sign-up that
   * signs in): `false` refuses with 403 `SIGN_IN_REJECTED`; see [hooks.md](hooks.md)
   */
  beforeSignIn: optional<BeforeSignIn>({ check: isFunction }),
};

/**
 * `createAuth({ hooks })`: app code that may refuse a sign-up or a sign-in. Both optional and async. A thrown
 * `AuthError` is the answer; any other throw is a 500.
 *
 * @example
 * hooks: {
 *   beforeUserCreated: async (user) => user.email.endsWith("@acme.example") ? undefined : false,
 *   beforeSignIn: async (user) => user.appMetadata.banned !== true,
 * }
 */
export type AuthHooks = InputOf<typeof HOOKS_SCHEMA>;

/** Checks `createAuth({ hooks })`: an object of functions. */
export function validateHooks(hooks: AuthHooks | undefined): AuthHooks {
  if (hooks === undefined) return {};
  if (hooks === null || typeof hooks !== "object") throw new AuthConfigError("hooks", "must be an object");
  applySchema(HOOKS_SCHEMA, hooks, "hooks");
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

/**
 * Whether `error` is a hook's refusal (`false`: 403 `SIGN_UP_REJECTED` or `SIGN_IN_REJECTED`), as opposed to a hook
 * that failed (any other throw). A refusal spends the code or link that reached the hook; a failure writes nothing.
 */
export function isHookRefusal(error: unknown): boolean {
  return error instanceof AuthError && (error.code === "SIGN_UP_REJECTED" || error.code === "SIGN_IN_REJECTED");
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
  constructor(
    private readonly hooks: AuthHooks,
    private readonly clock: Clock,
  ) {}

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

  /**
   * The gate every session-creating path passes: 403 `USER_BANNED` while the user's ban is in force (`admin()`;
   * the store's session insert refuses it too, atomically with a ban), then 403 `SIGN_IN_REJECTED` when the app's
   * hook says no.
   */
  async beforeSignIn(user: UserRecord, path: SignInPath, meta: RequestMeta): Promise<void> {
    if (banInForce(user, this.clock.now())) throw userBanned(user);
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
