import type { RequestMeta } from "../kernel/request-meta.ts";
import type { UserRecord } from "../ports/records.ts";
import type { Store } from "../ports/store.ts";
import type { CookieDescriptor, DeviceCredential, SessionService, SignInResult } from "./session.ts";

/** How the first factor was proven: the `method` of the `UserSignedIn` the finished sign-in emits. */
export type SignInMethod = "password" | "email-otp" | "email-verification" | "magic-link" | "social" | "passkey";

/** What a sign-in that passed its first factor tells the gate. */
export interface SignInAttempt {
  method: SignInMethod;
  rememberMe: boolean;
  /** The password hash checked by a password sign-in: the second step refuses to finish once it changed. */
  passwordHash?: string | null;
  /** The provider of a social sign-in: the finished sign-in's `UserSignedIn` names it. */
  providerId?: string;
  /**
   * The first factor proved the second too (a passkey with user verification: something the user has and is or
   * knows): the gate is not asked.
   */
  bothFactors?: boolean;
}

/**
 * A sign-in stopped after its first factor (`twoFactor()`): no session exists; the pending sign-in's single-use
 * token (in `cookie`, and for clients that take tokens themselves in the answer) finishes it with a second factor.
 */
export interface SecondFactorChallenge {
  twoFactorRequired: true;
  /** The user the pending sign-in is for (never sent to the client before the second step). */
  userId: string;
  /** The pending sign-in's token: only its SHA-256 is stored; single-use; dies at `expiresAt`. */
  pending: { token: string; expiresAt: string };
  /** The pending sign-in cookie (HttpOnly, as the session cookie, for the pending sign-in's life). */
  cookie: CookieDescriptor;
  /** The device cookie a password sign-in issues (the password was right): as on `SignInResult`. */
  device?: DeviceCredential;
}

/** What a sign-in hands back: a session, or the second step it needs first. */
export type SignInOutcome = SignInResult | SecondFactorChallenge;

/**
 * Decides whether a sign-in that passed its first factor gets its session now or needs a second step. A plugin
 * (`twoFactor()`) installs one; without it every sign-in gets its session.
 */
export interface SignInGate {
  /**
   * Null: sign in now (the user has no second factor, or the request carries a trusted-device cookie of the
   * account). Otherwise a pending sign-in, written through `store` (the caller's transaction, when it has one).
   */
  challenge(
    store: Store,
    user: UserRecord,
    meta: RequestMeta,
    attempt: SignInAttempt,
  ): Promise<SecondFactorChallenge | null>;
  /** The user signed out everywhere: every trusted-device cookie of the account stops skipping the second step. */
  forgetDevices(userId: string, at: Date): Promise<void>;
  /**
   * The first proof of the mailbox of a user never verified: a second factor set up before it (by whoever registered
   * the address) goes, through `store` (the proof's transaction). True when there was one.
   */
  removeSecondFactor(store: Store, userId: string): Promise<boolean>;
}

/** Whether an outcome is a second step rather than a session. */
export function isChallenge(outcome: SignInOutcome): outcome is SecondFactorChallenge {
  return "twoFactorRequired" in outcome;
}

/**
 * The session of a sign-in known to need no second step (no `twoFactor()`, or a user without it): a server call can
 * use the result directly. Throws when the sign-in stopped for its second step.
 *
 * @example
 * const { credentials } = signedIn(await auth.api.signIn({ email, password }));
 */
export function signedIn(outcome: SignInOutcome): SignInResult {
  if (isChallenge(outcome)) throw new Error("The sign-in needs its second step (two-factor) first");
  return outcome;
}

/**
 * The end of every sign-in's first factor: the gate's challenge when it asks for a second step, else a new
 * session. `ctx` is the caller's (a transaction's, when the sign-in writes in one), so the pending sign-in commits
 * with whatever the first factor spent.
 *
 * @example
 * return signInOrChallenge(tx, user, meta, { method: "magic-link", rememberMe: true });
 */
export async function signInOrChallenge(
  ctx: { readonly store: Store; readonly sessions: SessionService; readonly signInGate: SignInGate | null },
  user: UserRecord,
  meta: RequestMeta,
  attempt: SignInAttempt,
): Promise<SignInOutcome> {
  const challenge = attempt.bothFactors ? null : await ctx.signInGate?.challenge(ctx.store, user, meta, attempt);
  return challenge ?? ctx.sessions.create(user, meta, { rememberMe: attempt.rememberMe });
}
