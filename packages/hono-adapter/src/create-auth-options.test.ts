import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  apiKeys,
  auditLog,
  AuthConfigError,
  AUDIT_LOG_OPTION_SHAPE,
  AUTH_OPTION_SHAPE,
  API_KEYS_OPTION_SHAPE,
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
  type AuthPlugin,
  type OAuthOptions,
  type OptionShape,
} from "@latchkey/core";
import { memoryStore } from "@latchkey/memory-store";
import { ADAPTER_OPTION_SHAPE, createAuth } from "./create-auth.ts";
import { CREDENTIALS, PARTNERS, SECRET, VALID } from "./option-values-fixture.ts";

// Every option documented in docs/options.md, fed a misspelling and an unknown sibling at every nesting level
// (AuthConfigError naming the path and the nearest valid name), and a valid value (it still constructs).

const base = () => ({ secret: SECRET, database: memoryStore(), baseUrl: "https://app.example" });
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
