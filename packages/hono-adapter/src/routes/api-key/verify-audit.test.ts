import { describe, expect, it } from "vitest";
import { apiKeys, auditLog } from "@latchkey/core";
import { createTestAuth } from "../../../test/test-auth.ts";
import { createKey, signedIn } from "../../../test/routes/api-key/fixtures.ts";

describe("/api-key/verify with auditLog()", () => {
  it("writes no row for malformed or unknown keys; a known key's refusal keeps its code (as reason)", async () => {
    const t = createTestAuth({ plugins: [apiKeys(), auditLog()] });
    const { headers, userId } = await signedIn(t);
    const { key, apiKey } = await createKey(t, headers);
    const rowsOf = async () => (await t.auth.api.listAuditEvents({ limit: 100 })).events;
    const before = (await rowsOf()).length;
    const verify = async (body: Record<string, unknown>) =>
      (await t.request("POST", "/api-key/verify", { body, ip: "203.0.113.9" })).json();
    for (let i = 0; i < 20; i++) {
      expect(await verify({ key: `lk_${String(i).padStart(40, "Z")}` })).toMatchObject({ valid: false });
      expect(await verify({ key: `not a key ${i}` })).toMatchObject({ valid: false });
    }
    expect(await verify({})).toMatchObject({ valid: false });
    expect((await rowsOf()).length).toBe(before);

    await t.auth.api.updateApiKey({ keyId: apiKey.id, enabled: false });
    expect(await verify({ key })).toMatchObject({ valid: false, error: { code: "KEY_DISABLED" } });
    const rows = (await rowsOf()).filter((r) => r.type === "ApiKeyVerifyFailed");
    expect(rows).toEqual([
      expect.objectContaining({ userId: null, ip: "203.0.113.9", data: { keyId: apiKey.id, reason: "KEY_DISABLED" } }),
    ]);
    expect(JSON.stringify(rows)).not.toContain(key);
    expect(userId).toBeTruthy();
  });

  it("a failing audit store does not fail the verify of a malformed or unknown key", async () => {
    const t = createTestAuth({ plugins: [apiKeys(), auditLog()] });
    const append = t.store.audit!.append;
    t.store.audit!.append = () => Promise.reject(new Error("audit store down"));
    try {
      for (const key of [`lk_${"Q".repeat(40)}`, "junk"]) {
        const res = await t.request("POST", "/api-key/verify", { body: { key } });
        expect(res.status).toBe(200);
        expect(await res.json()).toMatchObject({ valid: false, error: { code: "INVALID_API_KEY" } });
      }
    } finally {
      t.store.audit!.append = append;
    }
  });
});
