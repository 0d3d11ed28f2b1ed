import { AuthConfigError, AuthError } from "../errors/errors.ts";
import { resolveConfig, type AuthOptions } from "./options.ts";
import type { ResolvedConfig } from "../kernel/config.ts";
import type { OptionShape } from "../config/closed-options.ts";
import { systemClock, webCryptoRandom, type Random } from "../ports/clock.ts";
import { argon2idHasher, type PasswordHasher } from "../password/argon2.ts";
import { HashGate } from "../password/hash-gate.ts";
import { DeviceCookies } from "../device/device-cookies.ts";
import { AuthEvents } from "../kernel/events.ts";
import { SessionService } from "../session/session.ts";
import { SessionManagementService } from "../session-management/index.ts";
import { HashBudget, Lockout, RateLimiter } from "../rate-limit/rate-limit.ts";
import { counterBinding, keyedCounters } from "../rate-limit/counter-binding.ts";
import { Mailer } from "../email/mailer.ts";
import { SendLimits } from "../email/send-limits.ts";
import { consoleEmailSender } from "../email/email.ts";
import { OneTimeSecrets } from "../one-time/one-time.ts";
import { randomToken } from "../crypto/crypto.ts";
import { describeError } from "../errors/describe.ts";
import { resolveLogger, type Logger } from "../logger/logger.ts";
import { EmailPasswordService } from "../email-password/index.ts";
import { EmailVerificationService } from "../email-verification/index.ts";
import { AccountService } from "../account/index.ts";
import { AccountDeletionService } from "../account/index.ts";
import type { AuthContext } from "../context/context.ts";
import { HookRunner, validateHooks } from "../hooks/hooks.ts";
import type { PluginPortName, PluginPorts, Store } from "../ports/store.ts";
import { buildApi, type AuthApi } from "./api.ts";
import type { AuthPlugin, InstalledPlugin, PluginId, PluginRegistry } from "../context/plugin.ts";
import { cacheOver, type AuthCache } from "../cache/auth-cache.ts";

/**
 * The transport-free auth engine that hono-adapter serves over HTTP. `P` is the tuple of plugins passed to
 * `createAuthCore`; it types `api`. The default (any plugins) is what adapters and hosts that store the engine use.
 */
export interface AuthCore<P extends readonly AuthPlugin[] = readonly AuthPlugin[]> {
  config: ResolvedConfig;
  ctx: AuthContext;
  events: AuthEvents;
  /** `createAuth({ logger })` or the console logger. */
  logger: Logger;
  emailPassword: EmailPasswordService;
  emailVerification: EmailVerificationService;
  /** Profile update, set-password, verify-password. */
  account: AccountService;
  /** Account deletion by password or emailed token. */
  accountDeletion: AccountDeletionService;
  /** The sessions a user can see and end (list, revoke one, others, all). */
  sessionManagement: SessionManagementService;
  /** Trusted server-side operations (no HTTP). */
  api: AuthApi<P>;
  /** The installed plugins by typed id: `core.plugins.get(API_KEY_PLUGIN_ID)?.service`. */
  plugins: PluginRegistry;
  /** With `captureOtp: true`: the latest plaintext code or token sent to `identifier` (tests only). */
  getOtp(identifier: string): string | undefined;
  /** `createAuth({ cache })`: its `stats()` and `close()`; null when the cache is off. */
  cache: AuthCache | null;
}

/**
 * Validates options and wires the services. Throws `AuthConfigError` naming the bad option. `adapterOptions`
 * lists the extra keys a transport accepts in the same object (they are not validated here beyond existing).
 *
 * @example
 * import { createAuthCore } from "@latchkey/core";
 * const core = createAuthCore({ secret, database: memoryStore(), baseUrl: "https://app.example" });
 */
export function createAuthCore<const P extends readonly AuthPlugin[] = []>(
  options: AuthOptions<P>,
  adapterOptions: OptionShape = {},
): AuthCore<P> {
  const config = resolveConfig(options, adapterOptions);
  const withCounters = storeWithCounters(options, config);
  const clock = options.clock ?? systemClock;
  const random = options.random ?? webCryptoRandom;
  // Every hash (the application's own hasher too) passes through one gate: bounded concurrency and queue.
  const hashGate = new HashGate(config.passwordHashing);
  const engine = options.passwordHasher ?? argon2idHasher({ random });
  const hasher = hashGate.wrap(engine);
  const logger = resolveLogger(options.logger);
  // With `cache`, every service reads through it and every write invalidates it (see cache/cached-store.ts).
  const { store, cache, start: startCache } = cacheOver(options.cache, withCounters, clock, logger);
  const events = new AuthEvents((error) =>
    logger.error({ event: "listener-failed", error: describeError(error) }, "event listener failed"),
  );
  const sender =
    options.email?.sender ??
    consoleEmailSender({
      showBody: config.environment === "development",
      // The console default prints its own `[latchkey email]` lines; a configured logger gets them as info.
      log: options.logger ? (line) => logger.info({ component: "email" }, line) : undefined,
    });
  const ctx: AuthContext = {
    config,
    store,
    clock,
    random,
    hasher,
    knownDeviceHasher: hashGate.wrap(engine, "known"),
    hashGate,
    devices: new DeviceCookies(config, store, clock, random),
    events,
    sessions: new SessionService(config, store, clock, random),
    signInGate: null,
    organizationRoles: null,
    lockout: new Lockout(config, store, clock, events),
    rateLimiter: new RateLimiter(config, store, clock, logger),
    hashBudget: new HashBudget(config, store, clock),
    mailer: new Mailer(config, sender, logger),
    sendLimits: new SendLimits(config, store, clock),
    logger,
    secrets: new OneTimeSecrets(store, clock, random),
    hooks: new HookRunner(validateHooks(options.hooks), clock),
    burnPasswordHash: dummyHashBurner(hasher, random),
  };
  const emailVerification = new EmailVerificationService(ctx);
  const emailPassword = new EmailPasswordService(ctx, emailVerification);
  const account = new AccountService(ctx, emailPassword);
  const accountDeletion = new AccountDeletionService(ctx, emailPassword);

  const { registry, pluginApis } = installPlugins(ctx, store, options.plugins ?? []);

  const captured = new Map<string, string>();
  if (config.captureOtp) events.on("OtpGenerated", (e) => void captured.set(e.identifier, e.plain));

  const core: AuthCore<P> = {
    config,
    ctx,
    events,
    logger,
    emailPassword,
    emailVerification,
    account,
    accountDeletion,
    sessionManagement: new SessionManagementService(ctx),
    api: undefined as unknown as AuthApi<P>,
    plugins: registry,
    cache,
    getOtp(identifier) {
      if (!config.captureOtp) throw new AuthError("NOT_FOUND", "getOtp needs captureOtp: true (tests only)");
      return captured.get(identifier.trim().toLowerCase());
    },
  };
  core.api = buildApi(core, pluginApis);
  startCache();
  return core;
}

/** The app's store with its counters (the database's, or a store of their own such as Redis) behind keyed keys. */
function storeWithCounters(options: AuthOptions<readonly AuthPlugin[]>, config: ResolvedConfig): Store {
  const binding = counterBinding(config.secret, config.baseOrigin);
  // A counter store of its own (Redis) keys its records by values derived from this app's secret and origin.
  options.counters?.bind?.(binding);
  // Counters may live in another engine (Redis): every service, transactions included, sees the same ones. Their
  // keys carry emails and client addresses: every store gets them through one keyed hash (storedCounterKey).
  return { ...options.database, counters: keyedCounters(options.counters ?? options.database.counters, binding) };
}

/** Verifies a password against one dummy hash (made once), so unknown accounts cost what known ones do. */
function dummyHashBurner(hasher: PasswordHasher, random: Random): (password: string) => Promise<void> {
  let dummyHash: Promise<string> | null = null;
  return async (password) => {
    if (!dummyHash) {
      const pending = hasher.hash(randomToken(random, 16));
      dummyHash = pending;
      // A failed dummy hash (BUSY, an engine error) must not stay cached: unknown emails would answer 500 for
      // good while known ones answer 200, telling which addresses have accounts. The next caller tries again.
      pending.catch(() => {
        if (dummyHash === pending) dummyHash = null;
      });
    }
    await hasher.verify(await dummyHash, password);
  };
}

/** Runs each plugin's `init` over the context, in order: the typed registry and the `api` methods they add. */
function installPlugins(
  ctx: AuthContext,
  store: Store,
  plugins: readonly AuthPlugin[],
): { registry: PluginRegistry; pluginApis: Record<string, unknown> } {
  const installed = new Map<string, InstalledPlugin>();
  const pluginApis: Record<string, unknown> = {};
  for (const [i, plugin] of plugins.entries()) {
    if (!plugin || typeof plugin.id !== "string" || typeof plugin.init !== "function")
      throw new AuthConfigError(`plugins[${i}]`, "is not a Latchkey plugin");
    if (installed.has(plugin.id)) throw new AuthConfigError(`plugins[${i}]`, `installs "${plugin.id}" twice`);
    const result = plugin.init(ctx, requiredPorts(store, plugin, i));
    if (result.signInGate) {
      if (ctx.signInGate)
        throw new AuthConfigError(
          `plugins[${i}]`,
          `("${plugin.id}") adds a second sign-in step, as an earlier plugin does`,
        );
      // Set on the context every service already holds: each sign-in asks it from now on.
      ctx.signInGate = result.signInGate;
    }
    installed.set(plugin.id, result);
    Object.assign(pluginApis, result.api);
  }
  const registry: PluginRegistry = {
    get: <I extends InstalledPlugin>(id: PluginId<string, I>) => (installed.get(id) as I | undefined) ?? null,
    has: (id) => installed.has(id),
    ids: [...installed.keys()],
  };
  return { registry, pluginApis };
}

/**
 * The plugin-owned ports `plugin.requires` lists, taken from the store; a missing one is an `AuthConfigError`
 * naming the plugin and the port, so the feature never meets an absent port at request time.
 */
function requiredPorts(store: Store, plugin: AuthPlugin, index: number): PluginPorts {
  if (!Array.isArray(plugin.requires))
    throw new AuthConfigError(
      `plugins[${index}]`,
      `("${plugin.id}") has no \`requires\` list (write [] when it needs no plugin-owned port)`,
    );
  const ports: Partial<PluginPorts> = {};
  for (const name of plugin.requires as readonly PluginPortName[]) {
    const port = store[name];
    if (!port)
      throw new AuthConfigError(
        `plugins[${index}]`,
        `("${plugin.id}") needs a store with the ${name} port; the "${store.kind}" store has none`,
      );
    (ports as Record<PluginPortName, unknown>)[name] = port;
  }
  // Exactly the ports `requires` names, each checked present above.
  return ports as PluginPorts;
}
