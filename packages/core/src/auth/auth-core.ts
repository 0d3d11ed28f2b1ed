import { AuthConfigError, AuthError } from "../errors/errors.ts";
import { resolveConfig, type AuthOptions, type ResolvedConfig } from "../config/options.ts";
import type { OptionShape } from "../config/closed-options.ts";
import { systemClock, webCryptoRandom } from "../ports/clock.ts";
import { argon2idHasher } from "../password/argon2.ts";
import { AuthEvents } from "../events/events.ts";
import { SessionService } from "../session/session.ts";
import { Lockout, RateLimiter } from "../rate-limit/rate-limit.ts";
import { Mailer } from "../email/mailer.ts";
import { consoleEmailSender } from "../email/email.ts";
import { OneTimeSecrets } from "../one-time/one-time.ts";
import { randomToken } from "../crypto/crypto.ts";
import { EmailPasswordService } from "../email-password/email-password.ts";
import { EmailVerificationService } from "../email-verification/email-verification.ts";
import { AccountService } from "../account/account.ts";
import { AccountDeletionService } from "../account/delete-account.ts";
import type { AuthContext } from "./context.ts";
import type { Store } from "../ports/store.ts";
import { buildApi, type AuthApi } from "./api.ts";

/** The transport-free auth engine that hono-adapter serves over HTTP. */
export interface AuthCore {
  config: ResolvedConfig;
  ctx: AuthContext;
  events: AuthEvents;
  emailPassword: EmailPasswordService;
  emailVerification: EmailVerificationService;
  /** Profile update, set-password, verify-password. */
  account: AccountService;
  /** Account deletion by password or emailed token. */
  accountDeletion: AccountDeletionService;
  /** Trusted server-side operations (no HTTP). */
  api: AuthApi;
  /** The service of an installed plugin, or null. */
  plugin<S>(id: string): S | null;
  /** With `captureOtp: true`: the latest plaintext code or token sent to `identifier` (tests only). */
  getOtp(identifier: string): string | undefined;
}

/**
 * Validates options and wires the services. Throws `AuthConfigError` naming the bad option. `adapterOptions`
 * lists the extra keys a transport accepts in the same object (they are not validated here beyond existing).
 *
 * @example
 * import { createAuthCore } from "@latchkey/core";
 * const core = createAuthCore({ secret, database: memoryStore(), baseUrl: "https://app.example" });
 */
export function createAuthCore(options: AuthOptions, adapterOptions: OptionShape = {}): AuthCore {
  const config = resolveConfig(options, adapterOptions);
  // Counters may live in another engine (Redis): every service, transactions included, sees the same ones.
  const store: Store = options.counters ? { ...options.database, counters: options.counters } : options.database;
  const clock = options.clock ?? systemClock;
  const random = options.random ?? webCryptoRandom;
  const hasher = options.passwordHasher ?? argon2idHasher({ random });
  const events = new AuthEvents();
  const sender = options.email?.sender ?? consoleEmailSender({ showBody: config.environment === "development" });
  let dummyHash: Promise<string> | null = null;
  const ctx: AuthContext = {
    config,
    store,
    clock,
    random,
    hasher,
    events,
    sessions: new SessionService(config, store, clock, random),
    lockout: new Lockout(config, store, clock, events),
    rateLimiter: new RateLimiter(config, store, clock),
    mailer: new Mailer(config, sender),
    secrets: new OneTimeSecrets(store, clock, random),
    async burnPasswordHash(password) {
      dummyHash ??= hasher.hash(randomToken(random, 16));
      await hasher.verify(await dummyHash, password);
    },
  };
  const emailVerification = new EmailVerificationService(ctx);
  const emailPassword = new EmailPasswordService(ctx, emailVerification);
  const account = new AccountService(ctx, emailPassword);
  const accountDeletion = new AccountDeletionService(ctx, emailPassword);

  const plugins = new Map<string, unknown>();
  const pluginApis: Record<string, unknown> = {};
  for (const [i, plugin] of (options.plugins ?? []).entries()) {
    if (!plugin || typeof plugin.id !== "string" || typeof plugin.init !== "function")
      throw new AuthConfigError(`plugins[${i}]`, "is not a Latchkey plugin");
    if (plugins.has(plugin.id)) throw new AuthConfigError(`plugins[${i}]`, `installs "${plugin.id}" twice`);
    const service = plugin.init(ctx);
    plugins.set(plugin.id, service);
    const contributed = (service as { api?: Record<string, unknown> } | null)?.api;
    if (contributed) Object.assign(pluginApis, contributed);
  }

  const captured = new Map<string, string>();
  if (config.captureOtp) events.on("OtpGenerated", (e) => void captured.set(e.identifier, e.plain));

  const core: AuthCore = {
    config,
    ctx,
    events,
    emailPassword,
    emailVerification,
    account,
    accountDeletion,
    api: undefined as unknown as AuthApi,
    plugin: <S>(id: string) => (plugins.get(id) as S | undefined) ?? null,
    getOtp(identifier) {
      if (!config.captureOtp) throw new AuthError("NOT_FOUND", "getOtp needs captureOtp: true (tests only)");
      return captured.get(identifier.trim().toLowerCase());
    },
  };
  core.api = buildApi(core, pluginApis);
  return core;
}
