import { describe, expect, it } from "vitest";
import { createKey, setup, signedIn } from "../../../test/routes/api-key/fixtures.ts";

describe("API-key owner requests are applied or refused, never half-ignored", () => {
  it("create {enabled: false} makes a disabled key the owner may enable later", async () => {
    const { t } = setup();
    const { headers } = await signedIn(t);
    const { key, apiKey } = await createKey(t, headers, { enabled: false });
    expect(apiKey).toMatchObject({ enabled: false, locked: false });
    const verify = async () => (await t.request("POST", "/api-key/verify", { body: { key } })).json();
    expect(await verify()).toMatchObject({ valid: false, error: { code: "KEY_DISABLED" } });
    const res = await t.request("POST", "/api-key/update", { body: { keyId: apiKey.id, enabled: true }, headers });
    expect(res.status).toBe(200);
    expect(await verify()).toMatchObject({ valid: true });
  });

  it("create and update refuse a field they do not apply with 400 naming it, and change nothing", async () => {
    const { t } = setup();
    const { headers, userId } = await signedIn(t);
    const { apiKey } = await createKey(t, headers, { name: "ci", expiresIn: "30d" });
    const before = await t.store.apiKeys.findById(apiKey.id);
    const cases: Array<[path: string, body: Record<string, unknown>, field: string]> = [
      ["/api-key/update", { keyId: apiKey.id, expiresIn: "1d" }, "expiresIn"],
      ["/api-key/update", { keyId: apiKey.id, expiresAt: null }, "expiresAt"],
      ["/api-key/update", { keyId: apiKey.id, prefix: "new_", name: "renamed" }, "prefix"],
      ["/api-key/create", { name: "x", expiresAt: "2030-01-01T00:00:00Z" }, "expiresAt"],
      ["/api-key/create", { name: "x", gracePeriod: 10 }, "gracePeriod"],
    ];
    for (const [path, body, field] of cases) {
      const res = await t.request("POST", path, { body, headers });
      expect([path, field, res.status]).toEqual([path, field, 400]);
      const json = await res.json();
      expect(json.code).toBe("INVALID_REQUEST");
      expect(json.details).toEqual([expect.objectContaining({ path: field })]);
    }
    expect(await t.store.apiKeys.findById(apiKey.id)).toEqual(before);
    expect((await t.store.apiKeys.listByUser(userId, { limit: 10, cursor: null })).items).toHaveLength(1);
  });
});

describe("apiKeys({ httpCreate: false })", () => {
  it("refuses POST /api-key/create with 403 KEY_CREATION_DISABLED and writes nothing; auth.api still creates", async () => {
    const { t, events } = setup({ httpCreate: false, defaultRemaining: 3 });
    const { headers, userId } = await signedIn(t);
    const res = await t.request("POST", "/api-key/create", { body: { name: "ci" }, headers });
    expect(res.status).toBe(403);
    expect((await res.json()).code).toBe("KEY_CREATION_DISABLED");
    expect((await t.store.apiKeys.listByUser(userId, { limit: 10, cursor: null })).items).toEqual([]);
    expect(events.filter((e) => e.type === "ApiKeyCreated")).toEqual([]);
    const { apiKey } = await t.auth.api.createApiKey({ userId, name: "issued" });
    expect(apiKey).toMatchObject({ userId, remaining: 3 });
  });

  it("without it, deleting a used-up key and creating another starts a new quota (the documented limit)", async () => {
    const { t } = setup({ defaultRemaining: 1 });
    const { headers } = await signedIn(t);
    let verified = 0;
    for (let round = 0; round < 3; round++) {
      const { key, apiKey } = await createKey(t, headers);
      while ((await (await t.request("POST", "/api-key/verify", { body: { key } })).json()).valid) verified++;
      expect((await t.request("POST", "/api-key/delete", { body: { keyId: apiKey.id }, headers })).status).toBe(200);
    }
    expect(verified).toBe(3);
  });
});
