import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { memoryStore } from "@latchkey/memory-store";
import { BASE_URL, bearer } from "../../test/test-auth.ts";
import { storesForTestRun, testStoreKind } from "../../test/test-stores.ts";
import { cacheInstances, listening } from "../../test/cache/revocation-fixture.ts";

// What the lookup cache hands a handler (the user, an API key) is the caller's own copy: editing it in place
// changes nothing a later request sees.

const { instance } = cacheInstances();

describe(`what the cache hands out is the caller's own (${testStoreKind()})`, () => {
  it("a handler that edits appMetadata or a key's permissions in place changes nothing later requests see", async () => {
    const t = instance(storesForTestRun(1)?.[0] ?? memoryStore());
    await listening(t);
    const { token, userId } = await t.signUp("ada@example.com");
    await t.auth.api.updateUser(userId, { appMetadata: { role: "reader", tags: ["a"] } });
    const { key } = await (
      t.auth.api as unknown as {
        createApiKey(i: { userId: string; permissions: Record<string, string[]> }): Promise<{ key: string }>;
      }
    ).createApiKey({ userId, permissions: { files: ["read"] } });
    const app = new Hono();
    app.use("*", t.auth.middleware);
    // A careless handler: it "upgrades" what it was given, in place, on every request.
    app.get("/me", t.auth.requireUser, (c) => {
      const meta = c.var.user.appMetadata as { role: string; tags: string[] };
      const seen = { role: meta.role, tags: [...meta.tags] };
      meta.role = "admin";
      meta.tags.push("admin");
      return c.json(seen);
    });
    app.get("/files", t.auth.requireApiKey({ permissions: { files: ["write"] } }), (c) => c.json({ ok: true }));
    app.get("/key", t.auth.requireApiKey(), (c) => {
      const permissions = c.var.apiKey.permissions as Record<string, string[]>;
      permissions.files?.push("write");
      return c.json({ ok: true });
    });
    for (let i = 0; i < 3; i++) {
      const res = await app.request(`${BASE_URL}/me`, { headers: bearer(token) });
      expect(await res.json()).toEqual({ role: "reader", tags: ["a"] });
      const cookieRes = await t.request("GET", "/get-session", { headers: bearer(token) });
      expect(((await cookieRes.json()) as { user: { appMetadata: unknown } }).user.appMetadata).toEqual({
        role: "reader",
        tags: ["a"],
      });
    }
    for (let i = 0; i < 3; i++) {
      expect((await app.request(`${BASE_URL}/key`, { headers: { "x-api-key": key } })).status).toBe(200);
      // The permission was never granted: a later check must not see the handler's edit.
      expect((await app.request(`${BASE_URL}/files`, { headers: { "x-api-key": key } })).status).toBe(403);
    }
    expect(t.auth.cache?.stats().hits).toBeGreaterThan(4); // the requests above were answered from the cache
  });
});
