import { describe, expect, it } from "vitest";
import { createKey, setup, signedIn } from "../../../test/routes/api-key/fixtures.ts";

// Every store project runs this file: what a key's metadata is stored as must read back the same everywhere.
describe("API-key metadata is JSON on every store, and create answers from the stored row", () => {
  it("JSON round-trips identically through create, list, update and verify", async () => {
    const { t } = setup();
    const { headers, userId } = await signedIn(t);
    const metadata = {
      team: "ops ✓ 𝄞",
      nested: { list: [1, -2.5, 1e21, 0.30000000000000004, true, null, "x"], empty: {}, none: [] },
      zero: -0,
    };
    const created = await createKey(t, headers, { name: "𝄞 ci", metadata });
    const expected = { ...metadata, zero: 0 };
    expect(created.apiKey.metadata).toEqual(expected);
    const listed = (await t.auth.api.listApiKeys({ userId })).apiKeys[0]!;
    // Byte for byte, key order included (jsonb orders an object's keys its own way): create answers the stored row.
    expect(JSON.stringify(listed)).toBe(JSON.stringify(created.apiKey));
    const updated = await t.auth.api.updateApiKey({ keyId: created.apiKey.id, serverMetadata: expected });
    expect(updated.apiKey.serverMetadata).toEqual(expected);
    const verified = await t.auth.api.verifyApiKey({ key: created.key });
    expect(verified).toMatchObject({ valid: true, apiKey: { metadata: expected, serverMetadata: expected } });
  });

  it("what is not JSON is 400 naming it, over HTTP and auth.api alike, and nothing is written", async () => {
    const { t } = setup();
    const { headers, userId } = await signedIn(t);
    const { apiKey } = await createKey(t, headers);
    const lone = "\uD800x";
    const bad: Array<[Record<string, unknown>, string]> = [
      [{ serverMetadata: { when: new Date(0) } }, "serverMetadata.when"],
      [{ serverMetadata: { n: Number.NaN } }, "serverMetadata.n"],
      [{ serverMetadata: { n: Number.POSITIVE_INFINITY } }, "serverMetadata.n"],
      [{ serverMetadata: { a: [1, undefined] } }, "serverMetadata.a.1"],
      [{ serverMetadata: { u: undefined } }, "serverMetadata.u"],
      [{ metadata: { s: lone } }, "metadata.s"],
      [{ metadata: { [lone]: 1 } }, `metadata.${lone}`],
      [{ metadata: { big: 10n } }, "metadata.big"],
      [{ name: `ci ${lone}` }, "name"],
    ];
    for (const [fields, path] of bad) {
      const create = t.auth.api.createApiKey({ userId, ...fields });
      await expect(create, path).rejects.toMatchObject({ code: "INVALID_REQUEST", details: [{ path }] });
      const update = t.auth.api.updateApiKey({ keyId: apiKey.id, ...fields });
      await expect(update, path).rejects.toMatchObject({ code: "INVALID_REQUEST", details: [{ path }] });
    }
    const overHttp = await t.request("POST", "/api-key/create", {
      headers,
      body: `{"name":"x","metadata":{"s":"\\ud800"}}`,
    });
    expect(overHttp.status).toBe(400);
    expect((await overHttp.json()).details).toEqual([expect.objectContaining({ path: "metadata.s" })]);
    const keys = (await t.auth.api.listApiKeys({ userId })).apiKeys;
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatchObject({ metadata: {}, serverMetadata: {}, name: null });
  });
});
