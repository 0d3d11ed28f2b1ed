import { describe, expect, it } from "vitest";
import { apiKeys, hashSecret, type ApiKeyStore, type FullStore } from "@latchkey/core";
import { memoryStore } from "@latchkey/memory-store";
import { bearer, createTestAuth } from "../../../test/test-auth.ts";
import { storeForTestRun } from "../../../test/test-stores.ts";
import { passwordlessUser } from "../../../test/routes/account/test-fixtures.ts";

// Issue 48 item 16: set-password and POST /api-key/create checked the session once, when the request arrived.
// A request checked just before the owner proved the mailbox (which revokes every session) still wrote the
// attacker's password or key after it. Both now re-check the session inside the write's transaction.

describe("the session is checked again inside the write's transaction", () => {
  it("set-password: a session revoked while the password was being checked and hashed sets nothing (401)", async () => {
    let revokeNow: () => Promise<unknown> = async () => undefined;
    const t = createTestAuth({
      // Runs after the route checked the session and before the write: the owner's mailbox proof lands here.
      emailPassword: { passwordPolicy: { check: async () => void (await revokeNow()) } },
    });
    const { token, userId } = await passwordlessUser(t, "victim@example.com");
    revokeNow = () => t.store.sessions.deleteByUser(userId);
    const res = await t.request("POST", "/set-password", {
      headers: bearer(token),
      body: { newPassword: "the attacker's password" },
    });
    expect([res.status, ((await res.json()) as { code: string }).code]).toEqual([401, "INVALID_CREDENTIALS"]);
    expect((await t.store.accounts.listByUser(userId)).some((a) => a.providerId === "credential")).toBe(false);
  });

  it("POST /api-key/create: a session revoked before the key was written creates no key (401)", async () => {
    const base = storeForTestRun() ?? memoryStore();
    let victimSession: string | null = null;
    // The session goes just before the key is written: through the same transaction when there is one.
    const revokingFirst = (keys: ApiKeyStore, sessions: FullStore["sessions"]): ApiKeyStore =>
      new Proxy(keys, {
        get: (target, property, receiver) =>
          property === "create"
            ? async (...args: Parameters<ApiKeyStore["create"]>) => {
                if (victimSession !== null) await sessions.delete(victimSession);
                return target.create(...args);
              }
            : Reflect.get(target, property, receiver),
      });
    const store: FullStore = {
      ...base,
      apiKeys: revokingFirst(base.apiKeys, base.sessions),
      transaction: (body) =>
        base.transaction((ports) =>
          body(ports.apiKeys ? { ...ports, apiKeys: revokingFirst(ports.apiKeys, ports.sessions) } : ports),
        ),
    };
    const t = createTestAuth({ store, plugins: [apiKeys()] });
    const { token, userId } = await t.signUp("victim@example.com");
    victimSession = (await base.sessions.findByTokenHash(hashSecret(token)))?.session.id ?? null;
    const res = await t.request("POST", "/api-key/create", { headers: bearer(token), body: { name: "attacker" } });
    expect([res.status, ((await res.json()) as { code: string }).code]).toEqual([401, "INVALID_CREDENTIALS"]);
    expect((await base.apiKeys.listByUser(userId, { limit: 10, cursor: null })).items).toEqual([]);
  });
});
