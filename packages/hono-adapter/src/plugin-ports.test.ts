// Plugins over a store that lacks their ports, and `auth.api` typed from the plugins passed.
import { describe, expect, expectTypeOf, it } from "vitest";
import {
  API_KEY_PLUGIN_ID,
  apiKeys,
  auditLog,
  AuthConfigError,
  emailOtp,
  jwt,
  type ApiKeyService,
  type BaseApi,
  type Store,
} from "@latchkey/core";
import { memoryStore } from "@latchkey/memory-store";
import { createAuth, type Auth } from "./create-auth.ts";
import { BASE_URL, TEST_SECRET } from "../test/test-auth.ts";

/** A memory store as a third-party store without API keys, JWKS or audit rows would be. */
function storeWithoutPluginPorts(): Store {
  const { apiKeys: _keys, jwks: _jwks, audit: _audit, ...rest } = memoryStore();
  return { ...rest, kind: "my-store" };
}

const base = { secret: TEST_SECRET, baseUrl: BASE_URL, rateLimit: { enabled: false } };

function configError(build: () => unknown): AuthConfigError {
  try {
    build();
  } catch (error) {
    if (error instanceof AuthConfigError) return error;
    throw error;
  }
  throw new Error("expected an AuthConfigError");
}

describe("plugin-owned store ports", () => {
  it("installing a plugin on a store without its port fails at createAuth, naming the plugin and the port", () => {
    const database = storeWithoutPluginPorts();
    const keys = configError(() => createAuth({ ...base, database, plugins: [emailOtp(), apiKeys()] }));
    expect(keys.field).toBe("plugins[1]");
    expect(keys.message).toBe(
      'plugins[1] ("api-key") needs a store with the apiKeys port; the "my-store" store has none',
    );
    expect(configError(() => createAuth({ ...base, database, plugins: [jwt()] })).message).toContain(
      '("jwt") needs a store with the jwks port',
    );
    expect(configError(() => createAuth({ ...base, database, plugins: [auditLog()] })).message).toContain(
      '("audit-log") needs a store with the audit port',
    );
  });

  it("jwt() with a signerFactory needs no jwks port", () => {
    const database = storeWithoutPluginPorts();
    const signerFactory = () => ({ currentKid: () => "k1", sign: async () => "h.p.s", publicKeys: async () => [] });
    expect(() => createAuth({ ...base, database, plugins: [jwt({ signerFactory })] })).not.toThrow();
  });

  it("the same store without those plugins serves sign-up, sign-in and email OTP over HTTP", async () => {
    const database = storeWithoutPluginPorts();
    const auth = createAuth({ ...base, database, plugins: [emailOtp()], captureOtp: true });
    const post = (path: string, body: unknown) =>
      auth.handler(
        new Request(`${BASE_URL}/auth${path}`, {
          method: "POST",
          headers: { "content-type": "application/json", origin: BASE_URL },
          body: JSON.stringify(body),
        }),
      );
    const signUp = await post("/sign-up/email", { email: "ada@example.com", password: "correct horse battery" });
    expect(signUp.status).toBe(200);
    const signIn = await post("/sign-in/email", { email: "ada@example.com", password: "correct horse battery" });
    expect(signIn.status).toBe(200);
    expect(await database.users.findByEmail("ada@example.com")).toMatchObject({ email: "ada@example.com" });
    // Proving the mailbox revokes API keys where the store has them; here it has none, and nothing fails.
    await auth.api.sendVerificationOtp({ email: "ada@example.com", purpose: "email-verification" });
    const otp = auth.getOtp("ada@example.com");
    expect(otp).toBeDefined();
    const verified = await post("/email-otp/verify-email", { email: "ada@example.com", otp });
    expect(verified.status).toBe(200);
    expect((await database.users.findByEmail("ada@example.com"))?.emailVerified).toBe(true);
    expect((await auth.handler(new Request(`${BASE_URL}/auth/api-key/list`))).status).toBe(404);
  });
});

describe("auth.api is typed from the plugins passed", () => {
  it("has the methods of installed plugins and not the others", () => {
    const database = memoryStore();
    const auth = createAuth({ ...base, database, plugins: [emailOtp(), apiKeys()] });
    expectTypeOf(auth.api).toHaveProperty("signInEmailOtp");
    expectTypeOf(auth.api).toHaveProperty("createApiKey");
    expectTypeOf(auth.api).not.toHaveProperty("signJwt");
    expectTypeOf(auth.api).not.toHaveProperty("listAuditEvents");
    // @ts-expect-error: jwt() is not installed.
    expect(typeof auth.api.signJwt).toBe("function"); // the runtime proxy still answers untyped callers
    // @ts-expect-error: auditLog() is not installed.
    void auth.api.listAuditEvents;

    const bare = createAuth({ ...base, database });
    expectTypeOf(bare.api).toEqualTypeOf<BaseApi>();
    expectTypeOf(bare.api).not.toHaveProperty("createApiKey");
  });

  it("an untyped caller of a missing plugin's method gets NOT_FOUND", async () => {
    const auth = createAuth({ ...base, database: memoryStore(), plugins: [emailOtp()] });
    const untyped = auth.api as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
    await expect(untyped.signJwt!({})).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("plain `Auth` holds any createAuth result; the registry is typed by the plugin id", () => {
    const auth = createAuth({ ...base, database: memoryStore(), plugins: [apiKeys()] });
    const stored: Auth = auth;
    expectTypeOf(stored.api).toHaveProperty("signIn");
    expectTypeOf(stored.api).not.toHaveProperty("createApiKey");
    const installed = auth.core.plugins.get(API_KEY_PLUGIN_ID);
    const service: ApiKeyService | undefined = installed?.service;
    expectTypeOf(service).toEqualTypeOf<ApiKeyService | undefined>();
    expect(installed?.options.header).toBe("x-api-key");
    expect(auth.core.plugins.ids).toEqual(["api-key"]);
    expect(createAuth({ ...base, database: memoryStore() }).core.plugins.get(API_KEY_PLUGIN_ID)).toBeNull();
  });
});
