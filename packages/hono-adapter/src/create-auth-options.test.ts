import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  apiKeys,
  auditLog,
  AuthConfigError,
  argon2idHasher,
  AUDIT_LOG_OPTION_SHAPE,
  AUTH_OPTION_SHAPE,
  API_KEYS_OPTION_SHAPE,
  consoleEmailSender,
  EACH,
  EMAIL_OTP_OPTION_SHAPE,
  EMAIL_TEMPLATE_NAMES,
  emailOtp,
  jwt,
  JWT_OPTION_SHAPE,
  MAGIC_LINK_OPTION_SHAPE,
  magicLink,
  TWO_FACTOR_OPTION_SHAPE,
  twoFactor,
  github,
  google,
  oauth,
  OAUTH_OPTION_SHAPE,
  PASSKEYS_OPTION_SHAPE,
  ADMIN_OPTION_SHAPE,
  admin,
  passkeys,
  ORGANIZATIONS_OPTION_SHAPE,
  organizations,
  type PasskeyOptions,
  type AdminOptions,
  webCryptoRandom,
  type AuthPlugin,
  type OAuthOptions,
  type OptionShape,
} from "@latchkey/core";
import { consoleLogger, inProcessCacheBus, systemClock } from "@latchkey/core/internal";
import { memoryStore } from "@latchkey/memory-store";
import { ADAPTER_OPTION_SHAPE, createAuth } from "./create-auth.ts";
import { clientIp } from "./http/client-ip.ts";

// Every option documented in docs/options.md, fed a misspelling and an unknown sibling at every nesting level
// (AuthConfigError naming the path and the nearest valid name), and a valid value (it still constructs).

const SECRET = "a-test-secret-that-is-long-enough-0123456789";
const base = () => ({ secret: SECRET, database: memoryStore(), baseUrl: "https://app.example" });
const CREDENTIALS = { clientId: "client-id", clientSecret: "client-secret" };
const PLUGINS: Record<string, (options: never) => AuthPlugin> = {
  emailOtp,
  magicLink,
  twoFactor,
  // `providers` is required: every other option of the table is tried beside one provider.
  oauth: (options: Partial<OAuthOptions>) => oauth({ providers: [google(CREDENTIALS)], ...options }),
  // `rpId` and `rpName` are required: every other option is tried beside them.
  passkeys: (options: Partial<PasskeyOptions>) => passkeys({ rpId: "app.example", rpName: "Example", ...options }),
  admin: (options: AdminOptions) => admin(options),
  organizations,
  apiKeys,
  jwt,
  auditLog,
} as never;
// Concrete keys for the free-keyed maps of the tables.
const PLACEHOLDERS: Record<string, string> = { "<path>": "/sign-in/email", "<name>": "" };

/** A documented option: `rateLimit.rules["<path>"].max` -> ["rateLimit", "rules", "<path>", "max"]. */
function segments(option: string): string[] {
  return [...option.matchAll(/([A-Za-z_$][\w$]*)|\["([^"]+)"\]/g)].map((m) => (m[1] ?? m[2]) as string);
}

function documentedOptions(): string[] {
  const text = readFileSync(new URL("../../../docs/options.md", import.meta.url), "utf8");
  const options: string[] = [];
  for (const line of text.split("\n")) {
    const first = /^\| ([^|]+) \|/.exec(line)?.[1];
    if (!first) continue;
    for (const m of first.matchAll(/`([^`]+)`/g)) {
      const name = m[1] as string;
      if (/^[A-Za-z][\w]*(?:\.[A-Za-z]\w*|\["<\w+>"\])*$/.test(name)) options.push(name);
    }
  }
  return options;
}

/** Every option path the shapes accept, in the tables' notation (free keys as `["<path>"]` / `["<name>"]`). */
function shapePaths(shape: OptionShape, prefix: string, out: string[] = []): string[] {
  const each = shape[EACH];
  if (each) return shapePaths(each, `${prefix}["<path>"]`, out);
  const keys = Object.keys(shape);
  if (keys.length > 0 && keys.every((k) => k.includes("."))) {
    out.push(`${prefix}["<name>"]`);
    return out;
  }
  for (const key of keys) {
    const path = prefix ? `${prefix}.${key}` : key;
    const rule = shape[key];
    if (rule === true) out.push(path);
    else shapePaths(rule as OptionShape, path, out);
  }
  return out;
}

const hasher = argon2idHasher({ random: webCryptoRandom, params: { memoryCost: 256, timeCost: 1, parallelism: 1 } });

/** A valid value for every documented option (keyed as in the tables). */
const VALID: Record<string, unknown> = {
  secret: SECRET,
  database: memoryStore(),
  counters: memoryStore().counters,
  baseUrl: "https://app.example",
  basePath: "/api/auth",
  environment: "development",
  appName: "Acme",
  "cookies.secure": true,
  "cookies.sameSite": "Strict",
  "cookies.domain": "app.example",
  "email.sender": consoleEmailSender(),
  "email.from": "auth@app.example",
  'email.templates["<name>"]': "Hello {{appName}}",
  "email.perRecipient": false,
  "email.perRecipient.window": "1h",
  "email.perRecipient.max": 10,
  "email.recipientCap": false,
  "email.recipientCap.window": "1h",
  "email.recipientCap.max": 20,
  "email.resendCooldown": "2m",
  trustedOrigins: ["https://admin.app.example"],
  "session.expiresIn": "30d",
  "session.updateAge": "2d",
  "session.shortExpiresIn": "12h",
  "session.freshAge": "1h",
  "hooks.beforeUserCreated": async () => undefined,
  "hooks.beforeSignIn": async () => true,
  "emailPassword.allowUsernameChange": true,
  "emailPassword.requireUsername": true,
  "emailPassword.minPasswordLength": 10,
  "emailPassword.passwordPolicy.minLength": 10,
  "emailPassword.passwordPolicy.maxLength": 200,
  "emailPassword.passwordPolicy.check": () => undefined,
  "emailPassword.maxPasswordLength": 200,
  "emailPassword.passwordReset.expiresIn": "30m",
  "emailPassword.passwordReset.callbackPath": "/reset",
  "emailPassword.passwordReset.callbackUrlOverride": "https://accounts.example/reset",
  "emailVerification.expiresIn": "2d",
  "emailVerification.callbackPath": "/verify",
  "emailVerification.requireVerifiedForSignIn": true,
  "emailVerification.callbackUrlOverride": "https://accounts.example/verify",
  "emailVerification.deleteUnverifiedAfter": "7d",
  "deleteAccount.expiresIn": "2h",
  "deleteAccount.callbackPath": "/delete",
  "deleteAccount.subject": "Delete your {{appName}} account?",
  "deleteAccount.callbackUrlOverride": "https://accounts.example/delete",
  "rateLimit.enabled": false,
  "rateLimit.window": "1m",
  "rateLimit.max": 500,
  "rateLimit.networkMax": 1000,
  'rateLimit.rules["<path>"]': false,
  'rateLimit.rules["<path>"].window': "5m",
  'rateLimit.rules["<path>"].max': 20,
  'rateLimit.rules["<path>"].networkMax': 200,
  "rateLimit.ipless": "skip",
  "lockout.enabled": false,
  "lockout.maxFailures": 10,
  "lockout.window": "30m",
  "lockout.duration": "1h",
  "lockout.codeFailuresPerDay": 30,
  "passwordHashing.concurrency": 2,
  "passwordHashing.maxQueue": 64,
  "passwordHashing.unauthenticatedBudget": false,
  "passwordHashing.unauthenticatedBudget.window": "10s",
  "passwordHashing.unauthenticatedBudget.max": 300,
  "deviceCookies.enabled": false,
  "deviceCookies.expiresIn": "90d",
  "auditLog.retention": "30d",
  getClientIp: clientIp.fromCfConnectingIp,
  plugins: [auditLog()],
  captureOtp: true,
  clock: systemClock,
  random: webCryptoRandom,
  passwordHasher: hasher,
  logger: consoleLogger(),
  cache: {},
  "cache.ttl": "10s",
  "cache.maxEntries": 500,
  "cache.carrier": inProcessCacheBus().carrier(),
  "cache.acceptRevocationDelay": false,
  telemetry: false,
  "reference.enabled": false,
  "reference.scriptUrl": "https://cdn.example/scalar.js",
  "reference.title": "Acme auth",
  cors: true,
  "cors.origins": ["https://spa.example"],
  "cors.allowHeaders": ["x-request-id"],
  "cors.exposeHeaders": ["x-request-id"],
  "cors.maxAge": 300,
  "emailOtp.codeLength": 8,
  "emailOtp.expiresIn": "10m",
  "emailOtp.maxAttempts": 5,
  "emailOtp.allowSignUp": false,
  "emailOtp.emailChange.enabled": true,
  "emailOtp.emailChange.verifyCurrentEmail": true,
  'emailOtp.templates["<name>"]': "Your code: {{otp}}",
  "magicLink.expiresIn": "10m",
  "magicLink.allowSignUp": false,
  "magicLink.confirmURL": "/confirm-sign-in",
  'magicLink.templates["<name>"]': "Sign in: {{url}}",
  "twoFactor.issuer": "Acme",
  "twoFactor.digits": 8,
  "twoFactor.period": 60,
  "twoFactor.window": 0,
  "twoFactor.algorithm": "SHA256",
  "twoFactor.trustDeviceFor": false,
  "twoFactor.recoveryCodes": 12,
  "oauth.providers": [github(CREDENTIALS)],
  "oauth.accountLinking": {},
  "oauth.accountLinking.trustedProviders": ["google"],
  "oauth.allowSignUp": false,
  "oauth.errorCallbackURL": "/sign-in",
  "passkeys.rpId": "example.com",
  "passkeys.rpName": "Acme",
  "passkeys.origins": ["https://app.example.com", `android:apk-key-hash:${"A".repeat(43)}`],
  "passkeys.userVerification": "preferred",
  "passkeys.allowPasskeyOnlyAccounts": true,
  "admin.adminRoles": ["admin", "support"],
  "admin.adminUserIds": ["usr_1"],
  "admin.impersonationSessionDuration": "30m",
  "admin.defaultRole": "member",
  "admin.listUsersCountLimit": 10_000,
  "organizations.roles": { billing: { billing: ["read"] } },
  "organizations.allowUserToCreate": (user: { email: string }) => user.email.endsWith("@acme.example"),
  "organizations.membershipLimit": 25,
  "organizations.invitationExpiresIn": "7d",
  "organizations.invitationURL": "/join",
  "organizations.hooks.beforeOrganizationCreated": () => undefined,
  "organizations.hooks.beforeMemberAdded": () => true,
  "jwt.alg": "ES256",
  "jwt.expiresIn": "5m",
  "jwt.issuer": "https://issuer.example",
  "jwt.audience": ["api-a", "api-b"],
  "jwt.rotationInterval": "30d",
  "jwt.gracePeriod": "60d",
  "jwt.keyCacheTtl": "30s",
  "jwt.disableSettingJwtHeader": true,
  "jwt.disablePrivateKeyEncryption": true,
  "jwt.jwksPath": "/keys",
  "jwt.tokenPath": "/jwt",
  "jwt.payloadBuilder": () => ({ role: "user" }),
  "jwt.signerFactory": () => ({ currentKid: () => "k1", sign: async () => "a.b.c", publicKeys: async () => [] }),
  "apiKeys.defaultPrefix": "acme_",
  "apiKeys.defaultRemaining": 100,
  "apiKeys.defaultRateLimitMax": 10,
  "apiKeys.defaultRateLimitWindow": "1m",
  "apiKeys.defaultExpiresIn": "90d",
  "apiKeys.maxExpiresIn": "180d",
  "apiKeys.grantablePermissions": { files: ["read"] },
  "apiKeys.header": "x-acme-key",
  "apiKeys.maxRerollGrace": "1d",
  "apiKeys.defaultRefillAmount": 1000,
  "apiKeys.defaultRefillInterval": "1d",
  "apiKeys.lastUsedResolution": "5m",
  "apiKeys.usage": true,
  "apiKeys.usageRetention": "30d",
  "apiKeys.maxPerUser": 20,
  "apiKeys.httpCreate": false,
};
// Options that only make sense with a partner (validation requires both).
const PARTNERS: Record<string, Record<string, unknown>> = {
  "apiKeys.defaultRateLimitMax": { defaultRateLimitWindow: "1m" },
  "apiKeys.defaultRateLimitWindow": { defaultRateLimitMax: 10 },
  "apiKeys.defaultRefillAmount": { defaultRefillInterval: "1d" },
  "apiKeys.defaultRefillInterval": { defaultRefillAmount: 1000 },
  'rateLimit.rules["<path>"].window': { max: 20 },
  'rateLimit.rules["<path>"].max': { window: "5m" },
  'rateLimit.rules["<path>"].networkMax': { window: "5m", max: 20 },
  "email.perRecipient.window": { max: 10 },
  "email.perRecipient.max": { window: "1h" },
  "email.recipientCap.window": { max: 20 },
  "email.recipientCap.max": { window: "1h" },
  "passwordHashing.unauthenticatedBudget.window": { max: 300 },
  "passwordHashing.unauthenticatedBudget.max": { window: "10s" },
};

/** Builds `{a: {b: {c: value}}}` from concrete keys. */
function nest(keys: string[], value: unknown, leafSiblings: Record<string, unknown> = {}): unknown {
  if (keys.length === 0) return value;
  const [head, ...rest] = keys as [string, ...string[]];
  return rest.length === 0 ? { ...leafSiblings, [head]: value } : { [head]: nest(rest, value, leafSiblings) };
}

function concrete(keys: string[], templateNames: Record<string, string>): string[] {
  return keys.map((k) => (k === "<name>" ? (templateNames[keys[0] as string] as string) : (PLACEHOLDERS[k] ?? k)));
}

const joinPath = (keys: string[]) =>
  keys.reduce((p, k) => (p === "" ? k : /^[A-Za-z_$][\w$]*$/.test(k) ? `${p}.${k}` : `${p}[${JSON.stringify(k)}]`), "");

/** Constructs createAuth (or the plugin, installed in createAuth) with `keys` set to `value`. */
function construct(keys: string[], value: unknown, leafSiblings: Record<string, unknown> = {}): void {
  const [root, ...rest] = keys as [string, ...string[]];
  const factory = PLUGINS[root];
  if (factory) {
    createAuth({ ...base(), plugins: [factory(nest(rest, value, leafSiblings) as never)] });
    return;
  }
  createAuth({ ...base(), ...(nest(keys, value, leafSiblings) as object) } as never);
}

function expectConfigError(run: () => void, field: string, message: unknown): void {
  let caught: unknown;
  try {
    run();
  } catch (error) {
    caught = error;
  }
  expect(caught, field).toBeInstanceOf(AuthConfigError);
  expect((caught as AuthConfigError).field).toBe(field);
  expect((caught as AuthConfigError).message).toEqual(message);
}

/** A deterministic typo: the name without its last character (`enabled` -> `enable`, `secure` -> `secur`). */
const misspell = (name: string) => name.slice(0, -1);

const documented = documentedOptions();
const templateNames = {
  email: "verification.subject",
  emailOtp: "otp-sign-in.subject",
  magicLink: "magic-link.subject",
};

describe("options are closed (docs/options.md is the table)", () => {
  it("the tables list exactly the options the schemas accept, and the test has a valid value for each", () => {
    const accepted = [
      ...shapePaths({ ...AUTH_OPTION_SHAPE, ...ADAPTER_OPTION_SHAPE }, ""),
      ...shapePaths(EMAIL_OTP_OPTION_SHAPE, "emailOtp"),
      ...shapePaths(MAGIC_LINK_OPTION_SHAPE, "magicLink"),
      ...shapePaths(TWO_FACTOR_OPTION_SHAPE, "twoFactor"),
      ...shapePaths(OAUTH_OPTION_SHAPE, "oauth"),
      ...shapePaths(PASSKEYS_OPTION_SHAPE, "passkeys"),
      ...shapePaths(ADMIN_OPTION_SHAPE, "admin"),
      ...shapePaths(ORGANIZATIONS_OPTION_SHAPE, "organizations"),
      ...shapePaths(API_KEYS_OPTION_SHAPE, "apiKeys"),
      ...shapePaths(JWT_OPTION_SHAPE, "jwt"),
      ...shapePaths(AUDIT_LOG_OPTION_SHAPE, "auditLog"),
    ];
    // Every accepted option is documented; a documented one is accepted, or is the parent of accepted ones
    // that may also be a value of its own (`cors: true`, `rateLimit.rules["<path>"]: false`).
    const parents = new Set(accepted.flatMap((p) => [...p.matchAll(/\.|\[/g)].map((m) => p.slice(0, m.index))));
    expect(accepted.filter((p) => !documented.includes(p))).toEqual([]);
    expect(documented.filter((p) => !accepted.includes(p) && !parents.has(p))).toEqual([]);
    expect(Object.keys(VALID).sort()).toEqual([...new Set(documented)].sort());
  });

  it.each(documented)("%s: a valid value constructs", (option) => {
    const keys = concrete(segments(option), templateNames);
    const siblings = PARTNERS[option] ?? {};
    expect(() => construct(keys, VALID[option], siblings)).not.toThrow();
  });

  it.each(documented)(
    "%s: a misspelling at every level and an unknown sibling are AuthConfigError naming the path",
    (option) => {
      const keys = concrete(segments(option), templateNames);
      const plugin = PLUGINS[keys[0] as string] !== undefined;
      for (let level = plugin ? 1 : 0; level < keys.length; level++) {
        const name = keys[level] as string;
        // Free keys (rule paths) are not names to misspell; their siblings are free too.
        if (segments(option)[level] === "<path>") continue;
        const typo = [...keys.slice(0, level), misspell(name), ...keys.slice(level + 1)];
        const field = joinPath(typo.slice(0, level + 1));
        expectConfigError(
          () => construct(typo, VALID[option]),
          field,
          `${field} is not an option; did you mean ${joinPath(keys.slice(0, level + 1))}?`,
        );

        const parent = keys.slice(0, level);
        const unknown = joinPath([...parent, "zzUnknownOption"]);
        expectConfigError(
          () => construct([...parent, "zzUnknownOption"], 1, {}),
          unknown,
          expect.stringMatching(new RegExp(`^${unknown.replace(/[.[\]"$]/g, "\\$&")} is not an option; `)),
        );
      }
    },
  );

  it("misspelt options name the option that was meant", () => {
    expectConfigError(
      () => createAuth({ ...base(), rateLimit: { enable: false } } as never),
      "rateLimit.enable",
      "rateLimit.enable is not an option; did you mean rateLimit.enabled?",
    );
    expectConfigError(
      () => emailOtp({ codeLenght: 8 } as never),
      "emailOtp.codeLenght",
      "emailOtp.codeLenght is not an option; did you mean emailOtp.codeLength?",
    );
    expectConfigError(
      () => apiKeys({ prefix: "acme_" } as never),
      "apiKeys.prefix",
      "apiKeys.prefix is not an option; did you mean apiKeys.defaultPrefix?",
    );
    expectConfigError(
      () => createAuth({ ...base(), sesion: { expiresIn: "1d" } } as never),
      "sesion",
      "sesion is not an option; did you mean session?",
    );
    expectConfigError(
      () => createAuth({ ...base(), cookies: { secur: true } } as never),
      "cookies.secur",
      "cookies.secur is not an option; did you mean cookies.secure?",
    );
    expectConfigError(
      () => auditLog({ retension: "30d" } as never),
      "auditLog.retension",
      "auditLog.retension is not an option; did you mean auditLog.retention?",
    );
    expectConfigError(
      () => createAuth({ ...base(), email: { templates: { "verification.htm": "x" } } } as never),
      'email.templates["verification.htm"]',
      'email.templates["verification.htm"] is not an option; did you mean email.templates["verification.html"]?',
    );
  });

  it("every template name of docs/email.md is accepted in email.templates and (otp, magic-link ones) in the plugin", () => {
    for (const name of EMAIL_TEMPLATE_NAMES) {
      expect(() => createAuth({ ...base(), email: { templates: { [name]: "x" } } })).not.toThrow();
      if (name.startsWith("otp")) expect(() => emailOtp({ templates: { [name]: "x" } })).not.toThrow();
      if (name.startsWith("magic-link")) expect(() => magicLink({ templates: { [name]: "x" } })).not.toThrow();
    }
  });
});
