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
