import { describe, expect, it } from "vitest";
import { memoryStore } from "@latchkey/memory-store";
import { storeForTestRun } from "../../test/test-stores.ts";
import { bearer, createTestAuth } from "../../test/test-auth.ts";

// PostgreSQL refuses NUL in text and JSON: input holding one is 400 on every store (it was a 500 on PostgreSQL,
// found by the reliability suite's fuzzer), and nothing is written.
describe("NUL characters in input", () => {
  it("sign-in by username, sign-up, PATCH /user name and metadata: 400 INVALID_REQUEST naming the field", async () => {
    const t = createTestAuth({ store: storeForTestRun() ?? memoryStore() });
    const cases: Array<[string, string, unknown, string]> = [
      ["POST", "/sign-in/email", { username: "ab\u0000c", password: "long enough pw" }, "username"],
      ["POST", "/sign-up/email", { email: "nul@example.com", password: "long enough pw", name: "x\u0000y" }, "name"],
    ];
    for (const [method, path, body, field] of cases) {
      const res = await t.request(method, path, { body });
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({
        code: "INVALID_REQUEST",
        message: "The request is invalid",
        details: [{ path: field, message: "Text may not contain NUL (U+0000)" }],
      });
    }
    expect(await t.store.users.findByEmail("nul@example.com")).toBeNull();
    const { token, userId } = await t.signUp("ada@example.com");
    const patch = await t.request("PATCH", "/user", {
      headers: bearer(token),
      body: { metadata: { nested: ["ok", "bad\u0000"] } },
    });
    expect(patch.status).toBe(400);
    expect(((await patch.json()) as { details: Array<{ path: string }> }).details[0]!.path).toBe("metadata.nested.1");
    expect((await t.store.users.findById(userId))?.metadata).toEqual({});
  });
});
