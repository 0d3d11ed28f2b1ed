import { describe, expect, it } from "vitest";
import { apiKeys } from "@latchkey/core";
import { bearer, createTestAuth } from "../../../test/test-auth.ts";

const DAY = 86_400_000;

/** A user with two keys, then a day and a second: the session still works but is no longer fresh. */
async function staleOwner() {
  const t = createTestAuth({
    session: { expiresIn: "30d", freshAge: "1d" },
    plugins: [apiKeys({ grantablePermissions: { files: ["read", "write"] } })],
  });
  const { token, userId } = await t.signUp("ada@example.com");
  const headers = bearer(token);
  const create = async (body: Record<string, unknown>) =>
    (await (await t.request("POST", "/api-key/create", { body, headers })).json()) as {
      key: string;
      apiKey: { id: string };
    };
  const a = await create({ name: "a", permissions: { files: ["read", "write"] } });
  const b = await create({ name: "b", permissions: { files: ["read"] } });
  // The owner disables key a while the session is fresh.
  expect(
    (await t.request("POST", "/api-key/update", { body: { keyId: a.apiKey.id, enabled: false }, headers })).status,
  ).toBe(200);
  t.clock.advance(DAY + 1000);
  return { t, headers, userId, a, b };
}

describe("API-key routes that return a value or widen a key need a fresh session", () => {
  it("reroll with an old session is 403 SESSION_NOT_FRESH: no new value, the old one keeps working", async () => {
    const { t, headers, b } = await staleOwner();
    const res = await t.request("POST", "/api-key/reroll", {
      body: { keyId: b.apiKey.id, gracePeriod: "7d" },
      headers,
    });
    expect(res.status).toBe(403);
    const body = await res.json();
    expect(body.code).toBe("SESSION_NOT_FRESH");
    expect(JSON.stringify(body)).not.toMatch(/lk_[A-Za-z0-9]{40}/);
    expect((await t.store.apiKeys.findById(b.apiKey.id))!.rerolledAt).toBeNull();
    expect(await (await t.request("POST", "/api-key/verify", { body: { key: b.key } })).json()).toMatchObject({
      valid: true,
    });
  });

  it("update with an old session cannot enable a disabled key nor add a permission; it changes nothing", async () => {
    const { t, headers, userId, a, b } = await staleOwner();
    const before = (await t.store.apiKeys.listByUser(userId, { limit: 10, cursor: null })).items;
    const widening: Array<Record<string, unknown>> = [
      { keyId: a.apiKey.id, enabled: true },
      { keyId: a.apiKey.id, enabled: true, name: "renamed" },
      { keyId: b.apiKey.id, permissions: { files: ["read", "write"] } },
    ];
    for (const body of widening) {
      const res = await t.request("POST", "/api-key/update", { body, headers });
      expect([JSON.stringify(body), res.status]).toEqual([JSON.stringify(body), 403]);
      expect((await res.json()).code).toBe("SESSION_NOT_FRESH");
    }
    expect((await t.store.apiKeys.listByUser(userId, { limit: 10, cursor: null })).items).toEqual(before);
    expect(await (await t.request("POST", "/api-key/verify", { body: { key: a.key } })).json()).toMatchObject({
      valid: false,
      error: { code: "KEY_DISABLED" },
    });
  });

  it("an old session may still rename, narrow, disable, or resend enabled: true on an enabled key", async () => {
    const { t, headers, a, b } = await staleOwner();
    const ok = async (body: Record<string, unknown>) => {
      const res = await t.request("POST", "/api-key/update", { body, headers });
      expect(res.status, await res.clone().text()).toBe(200);
      return (await res.json()).apiKey;
    };
    expect(await ok({ keyId: b.apiKey.id, name: "renamed", enabled: true })).toMatchObject({
      name: "renamed",
      enabled: true,
    });
    expect(await ok({ keyId: b.apiKey.id, permissions: {} })).toMatchObject({ permissions: {} });
    expect(await ok({ keyId: b.apiKey.id, enabled: false })).toMatchObject({ enabled: false });
    expect(await ok({ keyId: a.apiKey.id, metadata: { team: "ops" } })).toMatchObject({ enabled: false });
  });

  it("a fresh session does all of it", async () => {
    const { t, a, b } = await staleOwner();
    const res = await t.request("POST", "/sign-in/email", {
      body: { email: "ada@example.com", password: "correct horse battery" },
    });
    const headers = bearer((await res.json()).credentials.token);
    expect(
      (await t.request("POST", "/api-key/update", { body: { keyId: a.apiKey.id, enabled: true }, headers })).status,
    ).toBe(200);
    const widen = { keyId: b.apiKey.id, permissions: { files: ["read", "write"] } };
    expect((await t.request("POST", "/api-key/update", { body: widen, headers })).status).toBe(200);
    expect((await t.request("POST", "/api-key/reroll", { body: { keyId: b.apiKey.id }, headers })).status).toBe(200);
  });
});
