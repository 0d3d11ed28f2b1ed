import type { ResolvedConfig } from "../kernel/config.ts";
import type { Clock, Random } from "../ports/clock.ts";
import type { Store } from "../ports/store.ts";
import type { PasswordHasher } from "../password/argon2.ts";
import type { HashGate } from "../password/hash-gate.ts";
import type { DeviceCookies } from "../device/device-cookies.ts";
import type { AuthEvents } from "../kernel/events.ts";
import type { SessionService } from "../session/session.ts";
import type { SignInGate } from "../session/sign-in-gate.ts";
import type { HashBudget, Lockout, RateLimiter } from "../rate-limit/rate-limit.ts";
import type { Mailer } from "../email/mailer.ts";
import type { SendLimits } from "../email/send-limits.ts";
import type { OneTimeSecrets } from "../one-time/one-time.ts";
import type { Logger } from "../logger/logger.ts";
import type { HookRunner } from "../hooks/hooks.ts";
import type { RoleTable } from "../kernel/role-table.ts";

/** What every feature service is built on. Created once by `createAuthCore`. */
export interface AuthContext {
  config: ResolvedConfig;
  store: Store;
  clock: Clock;
  random: Random;
  /** The configured hasher behind `hashGate` (every hash and verify waits for a slot there). */
  hasher: PasswordHasher;
  /** The same hasher in the gate's known-device lane: sign-ins that presented a valid device cookie. */
  knownDeviceHasher: PasswordHasher;
  hashGate: HashGate;
  /** Device cookies: issued on sign-in, recognised before the anonymous limits, rotated on use. */
  devices: DeviceCookies;
  events: AuthEvents;
  sessions: SessionService;
  /**
   * Whether a sign-in that passed its first factor needs a second step (`twoFactor()` installs one; null: never).
   * Every sign-in ends through it (`signInOrChallenge`).
   */
  signInGate: SignInGate | null;
  /**
   * The roles of `organizations()` (null without it): what an organization's API key may carry and do, read on
   * every verify of one.
   */
  organizationRoles: RoleTable | null;
  lockout: Lockout;
  rateLimiter: RateLimiter;
  /** The shared budget of unauthenticated hashing routes (the transport spends it; trusted calls do not). */
  hashBudget: HashBudget;
  mailer: Mailer;
  /** Per-recipient email budget and resend cooldown: ask before issuing anything that is mailed. */
  sendLimits: SendLimits;
  secrets: OneTimeSecrets;
  /** `createAuth({ logger })`, or the console: every line Latchkey writes. */
  logger: Logger;
  /** The app's `beforeUserCreated` / `beforeSignIn` hooks, called on every user- and session-creating path. */
  hooks: HookRunner;
  /** Spends one password hash so unknown identifiers cost the same as known ones. */
  burnPasswordHash(password: string): Promise<void>;
}
