import { describeError } from "../errors/describe.ts";
/** Fields every event carries. */
export interface EventBase {
  at: Date;
  ip?: string | null;
  userAgent?: string | null;
}

export type OtpPurpose = "sign-in" | "email-verification" | "password-reset" | "email-change";

/** Event name -> payload. Secrets appear only in `OtpGenerated`. */
export interface AuthEventMap {
  UserSignedUp: EventBase & { userId: string; email: string };
  UserSignedIn: EventBase & {
    userId: string;
    method: "password" | "email-otp" | "email-verification" | "magic-link" | "social" | "passkey";
    /** The provider of a social sign-in (`method: "social"`). */
    providerId?: string;
  };
  /** A provider identity was linked to the user (a social sign-up, a trusted email match, `POST /link-social`). */
  AccountLinked: EventBase & { userId: string; providerId: string };
  /** A provider identity was unlinked (`POST /unlink-account`). */
  AccountUnlinked: EventBase & { userId: string; providerId: string };
  /** A passkey was registered (`POST /passkey/register/verify`). */
  PasskeyAdded: EventBase & { userId: string; passkeyId: string };
  /** A passkey was deleted (`DELETE /passkey/:id`). */
  PasskeyRemoved: EventBase & { userId: string; passkeyId: string };
  /**
   * A passkey sign-in whose signature counter did not advance past the stored one: the credential may have been
   * cloned. The sign-in was refused.
   */
  PasskeyCounterRegression: EventBase & { userId: string; passkeyId: string; stored: number; received: number };
  /** An organization was created (`userId`: its creator, now its owner). */
  OrganizationCreated: EventBase & { userId: string; organizationId: string; slug: string };
  OrganizationUpdated: EventBase & { userId: string; organizationId: string; fields: string[] };
  /** An organization was deleted with its members and invitations. */
  OrganizationDeleted: EventBase & { userId: string; organizationId: string };
  /** A membership was written (`userId`: who did it; `memberUserId`: the new member). */
  MemberAdded: EventBase & {
    userId: string;
    organizationId: string;
    memberUserId: string;
    role: string;
    via: "create" | "invitation" | "api";
  };
  /** A membership ended: removed by another member, or the member left. */
  MemberRemoved: EventBase & {
    userId: string;
    organizationId: string;
    memberUserId: string;
    reason: "removed" | "left";
  };
  MemberRoleChanged: EventBase & {
    userId: string;
    organizationId: string;
    memberUserId: string;
    from: string;
    to: string;
  };
  /** An invitation was sent (`identifier`: the invitee's email). */
  InvitationCreated: EventBase & {
    userId: string;
    organizationId: string;
    invitationId: string;
    identifier: string;
    role: string;
  };
  /** A pending invitation was sent again with a new expiry. */
  InvitationResent: EventBase & { userId: string; organizationId: string; invitationId: string; identifier: string };
  InvitationAccepted: EventBase & { userId: string; organizationId: string; invitationId: string };
  InvitationRejected: EventBase & { userId: string; organizationId: string; invitationId: string };
  InvitationCanceled: EventBase & { userId: string; organizationId: string; invitationId: string };
  /** The session's active organization changed (`organizationId` null: cleared). */
  ActiveOrganizationChanged: EventBase & { userId: string; sessionId: string; organizationId: string | null };
  SignInFailed: EventBase & { identifier: string; reason: string };
  /** An interactive sign-up of an address that already has an account (`identifier`: the email). */
  SignUpFailed: EventBase & { identifier: string; reason: "email-taken" };
  SessionRevoked: EventBase & { userId: string; sessionId: string | null; reason: string; count: number };
  PasswordChanged: EventBase & {
    userId: string;
    method: "change-password" | "reset-token" | "reset-otp" | "set-password";
  };
  EmailVerified: EventBase & { userId: string; email: string };
  EmailChanged: EventBase & { userId: string; oldEmail: string; newEmail: string };
  AccountDeleted: EventBase & { userId: string; email: string };
  /** An admin banned the user (`admin()`): `until` null for a ban without an end; `reason` as the admin wrote it. */
  UserBanned: EventBase & {
    userId: string;
    actorId: string;
    reason: string | null;
    until: Date | null;
    keysDisabled: number;
  };
  UserUnbanned: EventBase & { userId: string; actorId: string };
  /** An admin set the user's `appMetadata.role` (null: removed). */
  UserRoleChanged: EventBase & { userId: string; actorId: string; role: string | string[] | null };
  /** An admin started a session as the user (`/admin/impersonate-user`). */
  ImpersonationStarted: EventBase & { userId: string; actorId: string; sessionId: string };
  ImpersonationStopped: EventBase & { userId: string; actorId: string; sessionId: string };
  AccountLocked: EventBase & { identifier: string; until: Date };
  UserUpdated: EventBase & { userId: string; fields: string[] };
  ApiKeyCreated: EventBase & { keyId: string; userId: string };
  ApiKeyRevoked: EventBase & { keyId: string; userId: string };
  /** A key got a new value; the old one verifies until `graceUntil` (null: it stopped at once). */
  ApiKeyRerolled: EventBase & { keyId: string; userId: string; graceUntil: Date | null };
  ApiKeyVerifyFailed: EventBase & { keyId?: string; code: string };
  OtpRequested: EventBase & {
    identifier: string;
    purpose: OtpPurpose | "email-verification-link" | "password-reset-link" | "delete-account" | "magic-link";
  };
  OtpVerified: EventBase & {
    identifier: string;
    purpose: OtpPurpose | "email-verification-link" | "password-reset-link" | "delete-account" | "magic-link";
    userId: string | null;
  };
  OtpVerifyFailed: EventBase & { identifier: string; purpose: OtpPurpose; attemptCount: number };
  /** A user's two-factor setup was proven by a first code: the second step is on from now. */
  TwoFactorEnabled: EventBase & { userId: string };
  /**
   * Two-factor was switched off: with a current code or a recovery code, or (`email-proven`) by the first proof of
   * the mailbox, which removes a second factor set up before it (pre-account hijacking).
   */
  TwoFactorDisabled: EventBase & { userId: string; method: "totp" | "recovery-code" | "email-proven" };
  /** A single-use recovery code was spent; `remaining` is how many are left. */
  RecoveryCodeUsed: EventBase & { userId: string; remaining: number };
  /** A wrong (or replayed) authenticator or recovery code; counted by the second-factor lockout. */
  TwoFactorFailed: EventBase & {
    userId: string;
    reason: "invalid-code" | "invalid-recovery-code";
    action: "verify-setup" | "disable" | "sign-in";
  };
  /** Carries the plaintext code or token. Never audited; meant for custom delivery and `captureOtp` in tests. */
  OtpGenerated: EventBase & {
    identifier: string;
    purpose: OtpPurpose | "email-verification-link" | "password-reset-link" | "delete-account" | "magic-link";
    plain: string;
  };
}

export type AuthEventName = keyof AuthEventMap;
export type AuthEvent = { [K in AuthEventName]: { type: K } & AuthEventMap[K] }[AuthEventName];
/** A listener may return anything; a returned thenable (promise) is awaited before the request answers, any other value is ignored. */
export type AuthEventListener<K extends AuthEventName> = (event: AuthEventMap[K] & { type: K }) => unknown;

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === "object" || typeof value === "function") &&
    value !== null &&
    typeof (value as { then?: unknown }).then === "function"
  );
}

/**
 * Typed event bus. Listeners run in order; a failing listener is reported to `onError` and never breaks the flow,
 * except a `required` one (`onAny(fn, { required: true })`), whose failure `emit` rethrows after every listener ran.
 *
 * @example
 * auth.events.on("OtpVerified", (e) => console.log(e.identifier, e.userId));
 */
export class AuthEvents {
  readonly #listeners = new Map<AuthEventName, Set<AuthEventListener<AuthEventName>>>();
  readonly #any = new Set<(event: AuthEvent) => unknown>();
  readonly #required = new Set<(event: AuthEvent) => unknown>();
  readonly #onError: (error: unknown) => void;

  constructor(
    onError: (error: unknown) => void = (error) =>
      console.error(`[latchkey] event listener failed: ${describeError(error)}`),
  ) {
    this.#onError = onError;
  }

  on<K extends AuthEventName>(name: K, listener: AuthEventListener<K>): () => void {
    let set = this.#listeners.get(name);
    if (!set) {
      set = new Set();
      this.#listeners.set(name, set);
    }
    set.add(listener as unknown as AuthEventListener<AuthEventName>);
    return () => set.delete(listener as unknown as AuthEventListener<AuthEventName>);
  }

  /**
   * Every event (used by `auditLog()`). A `required` listener's failure is not only reported: `emit` rejects with
   * it once every listener has run, so the request that emitted the event fails instead of losing the effect
   * (the audit row) without a trace.
   */
  onAny(listener: (event: AuthEvent) => unknown, options: { required?: boolean } = {}): () => void {
    this.#any.add(listener);
    if (options.required) this.#required.add(listener);
    return () => {
      this.#any.delete(listener);
      this.#required.delete(listener);
    };
  }

  /**
   * Whether an `emit(name)` now would reach a listener (one for `name`, or one for every event): an event nobody
   * listens to need not be built.
   */
  listens(name: AuthEventName): boolean {
    return this.#any.size > 0 || (this.#listeners.get(name)?.size ?? 0) > 0;
  }

  /** Runs the listeners and waits for async ones, so effects (audit rows) exist when the request answers. */
  async emit<K extends AuthEventName>(name: K, payload: AuthEventMap[K]): Promise<void> {
    if (!this.listens(name)) return;
    const set = this.#listeners.get(name);
    const event = { type: name, ...payload } as AuthEventMap[K] & { type: K };
    const pending: Promise<unknown>[] = [];
    const failures: unknown[] = [];
    const run = (fn: () => unknown, required: boolean) => {
      const fail = (error: unknown) => {
        this.#onError(error);
        if (required) failures.push(error);
      };
      try {
        const r = fn();
        // `(e) => list.push(e)` returns a number: only thenables are awaited.
        if (isThenable(r)) pending.push(Promise.resolve(r).catch(fail));
      } catch (error) {
        fail(error);
      }
    };
    if (set) for (const l of set) run(() => l(event), false);
    for (const l of this.#any) run(() => l(event as unknown as AuthEvent), this.#required.has(l));
    if (pending.length) await Promise.all(pending);
    if (failures.length) throw failures[0];
  }
}
