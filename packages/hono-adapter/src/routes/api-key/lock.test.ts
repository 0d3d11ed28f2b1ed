// Issue 30 item 4: a key disabled by trusted code is locked against its owner; server metadata is server-only.
// Runs on memory, libSQL and PostgreSQL (the hono-adapter projects).
import { describe, expect, it } from "vitest";
import { createKey, setup, signedIn } from "../../../test/routes/api-key/fixtures.ts";

describe("API key lock and server metadata (security review 30.4)", () => {
  it("owner re-enabling a key the operator disabled through auth.api: 403 KEY_LOCKED, the key stays refused", async () => {
    const { t } = setup();
    const { headers } = await signedIn(t);
    const { key, apiKey } = await createKey(t, headers, { name: "leaked" });
    await t.auth.api.updateApiKey({ keyId: apiKey.id, enabled: false });
    expect(await t.store.apiKeys.findById(apiKey.id)).toMatchObject({ enabled: false, locked: true });

    const res = await t.request("POST", "/api-key/update", {
      body: { keyId: apiKey.id, enabled: true, name: "sneaky" },
      headers,
    });
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ code: "KEY_LOCKED" });
    // Nothing changed, not even the name sent alongside.
    expect(await t.store.apiKeys.findById(apiKey.id)).toMatchObject({ enabled: false, locked: true, name: "leaked" });
    const verify = await (await t.request("POST", "/api-key/verify", { body: { key } })).json();
    expect(verify).toMatchObject({ valid: false, error: { code: "KEY_DISABLED" } });

    // The owner sees why, and may still rename or keep it disabled.
    const list = await (await t.request("GET", "/api-key/list", { headers })).json();
    expect(list.apiKeys[0]).toMatchObject({ id: apiKey.id, enabled: false, locked: true });
    const rename = await t.request("POST", "/api-key/update", {
      body: { keyId: apiKey.id, enabled: false, name: "still off" },
      headers,
    });
    expect(rename.status).toBe(200);

    // Only trusted code unlocks.
    expect((await t.auth.api.updateApiKey({ keyId: apiKey.id, enabled: true })).apiKey).toMatchObject({
      enabled: true,
      locked: false,
    });
    expect(await (await t.request("POST", "/api-key/verify", { body: { key } })).json()).toMatchObject({ valid: true });
  });

  it("the owner may disable and re-enable their own key; a key created disabled by auth.api is locked too", async () => {
    const { t } = setup();
    const { headers, userId } = await signedIn(t);
    const { apiKey } = await createKey(t, headers);
    for (const enabled of [false, true]) {
      const res = await t.request("POST", "/api-key/update", { body: { keyId: apiKey.id, enabled }, headers });
      expect(res.status).toBe(200);
      expect((await res.json()).apiKey).toMatchObject({ enabled, locked: false });
    }
    const created = await t.auth.api.createApiKey({ userId, enabled: false });
    expect(created.apiKey).toMatchObject({ enabled: false, locked: true });
    const res = await t.request("POST", "/api-key/update", {
      body: { keyId: created.apiKey.id, enabled: true },
      headers,
    });
    expect(res.status).toBe(403);
    expect((await t.store.apiKeys.findById(created.apiKey.id))!.enabled).toBe(false);
  });

  it("owner writing serverMetadata over HTTP: 400 SERVER_ONLY_PROPERTY on create and update, nothing stored", async () => {
    const { t } = setup();
    const { headers, userId } = await signedIn(t);
    const create = await t.request("POST", "/api-key/create", {
      body: { name: "x", serverMetadata: { plan: "enterprise" } },
      headers,
    });
    expect(create.status).toBe(400);
    expect(await create.json()).toMatchObject({ code: "SERVER_ONLY_PROPERTY" });
    expect((await t.auth.api.listApiKeys({ userId })).apiKeys).toEqual([]);

    const made = await t.auth.api.createApiKey({ userId, metadata: { mine: 1 }, serverMetadata: { plan: "free" } });
    for (const body of [{ serverMetadata: { plan: "enterprise" } }, { locked: false }]) {
      const res = await t.request("POST", "/api-key/update", { body: { keyId: made.apiKey.id, ...body }, headers });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ code: "SERVER_ONLY_PROPERTY" });
    }
    // The owner's own metadata stays theirs; the server's is shown, read-only.
    const own = await t.request("POST", "/api-key/update", {
      body: { keyId: made.apiKey.id, metadata: { mine: 2 } },
      headers,
    });
    expect((await own.json()).apiKey).toMatchObject({ metadata: { mine: 2 }, serverMetadata: { plan: "free" } });
    expect(await t.store.apiKeys.findById(made.apiKey.id)).toMatchObject({
      metadata: { mine: 2 },
      serverMetadata: { plan: "free" },
    });
    await t.auth.api.updateApiKey({ keyId: made.apiKey.id, serverMetadata: { plan: "pro" } });
    expect((await t.store.apiKeys.findById(made.apiKey.id))!.serverMetadata).toEqual({ plan: "pro" });
  });
});
