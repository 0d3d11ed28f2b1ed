import { describe, expect, it } from "vitest";
import { Hono } from "hono";
import { BASE_URL } from "../../../test/test-auth.ts";
import { createKey, setup, signedIn } from "../../../test/routes/api-key/fixtures.ts";

describe("/api-key/verify shows a key holder nothing of the operator's", () => {
  it("no serverMetadata over HTTP; auth.api.verifyApiKey and requireApiKey still see it", async () => {
    const { t } = setup();
    const { headers } = await signedIn(t);
    const { key, apiKey } = await createKey(t, headers);
    await t.auth.api.updateApiKey({ keyId: apiKey.id, serverMetadata: { plan: "enterprise", margin: 0.42 } });
    const res = await (await t.request("POST", "/api-key/verify", { body: { key } })).json();
    expect(res).toMatchObject({ valid: true, apiKey: { id: apiKey.id } });
    expect(res.apiKey).not.toHaveProperty("serverMetadata");
    expect(JSON.stringify(res)).not.toContain("enterprise");
    const trusted = await t.auth.api.verifyApiKey({ key });
    expect(trusted).toMatchObject({ valid: true, apiKey: { serverMetadata: { plan: "enterprise", margin: 0.42 } } });
    const host = new Hono();
    host.use("*", t.auth.middleware);
    host.get("/data", t.auth.requireApiKey(), (c) => c.json(c.var.apiKey.serverMetadata));
    const seen = await (await host.request(`${BASE_URL}/data`, { headers: { "x-api-key": key } })).json();
    expect(seen).toEqual({ plan: "enterprise", margin: 0.42 });
  });

  it("an old value inside its grace is answered with its own start, never the replacement's", async () => {
    for (const metered of [false, true]) {
      const { t } = setup();
      const { headers } = await signedIn(t);
      const { key: old, apiKey } = await createKey(t, headers);
      if (metered) await t.auth.api.updateApiKey({ keyId: apiKey.id, remaining: 10 });
      const { key: fresh } = await t.auth.api.rerollApiKey({ keyId: apiKey.id, gracePeriod: "1h" });
      const viaOld = await (await t.request("POST", "/api-key/verify", { body: { key: old } })).json();
      expect(viaOld).toMatchObject({ valid: true, deprecated: true, apiKey: { start: old.slice(0, 8) } });
      expect(JSON.stringify(viaOld)).not.toContain(fresh.slice(0, 8));
      const viaNew = await (await t.request("POST", "/api-key/verify", { body: { key: fresh } })).json();
      expect(viaNew).toMatchObject({ valid: true, deprecated: false, apiKey: { start: fresh.slice(0, 8) } });
    }
  });
});
