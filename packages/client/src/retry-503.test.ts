import { describe, expect, it } from "vitest";
import { BASE, server } from "../test/test-server.ts";
import { createLatchkeyClient } from "./index.ts";

// Issue 42: overload is not refusal. A 503 with Retry-After (a full hashing queue) is retried once by itself.
describe("503 with Retry-After", () => {
  const answers = (...statuses: number[]) => {
    const seen: Request[] = [];
    const fetch = async (request: Request) => {
      seen.push(request);
      const status = statuses[Math.min(seen.length - 1, statuses.length - 1)]!;
      return status === 503
        ? new Response(JSON.stringify({ code: "BUSY", message: "busy" }), {
            status,
            headers: { "content-type": "application/json", "retry-after": "0" },
          })
        : new Response(JSON.stringify({ success: true }), { status, headers: { "content-type": "application/json" } });
    };
    return { seen, fetch };
  };

  it("is retried once after Retry-After seconds, with the same body, and the retry's answer is the answer", async () => {
    const once = answers(503, 200);
    const client = createLatchkeyClient({ baseURL: `${BASE}/auth`, fetch: once.fetch });
    const result = await client.requestPasswordReset({ email: "ada@example.com" });
    expect(result.error).toBeNull();
    expect(once.seen).toHaveLength(2);
    expect(await once.seen[1]!.json()).toEqual({ email: "ada@example.com" });

    const twice = answers(503, 503, 200);
    const stubborn = await createLatchkeyClient({ baseURL: `${BASE}/auth`, fetch: twice.fetch }).requestPasswordReset({
      email: "ada@example.com",
    });
    expect(stubborn.error?.code).toBe("BUSY");
    expect(twice.seen).toHaveLength(2);
  });

  it("retryOn503: false answers the 503 at once", async () => {
    const off = answers(503, 200);
    const client = createLatchkeyClient({ baseURL: `${BASE}/auth`, fetch: off.fetch, retryOn503: false });
    const result = await client.requestPasswordReset({ email: "ada@example.com" });
    expect(result.error).toMatchObject({ code: "BUSY", status: 503 });
    expect(off.seen).toHaveLength(1);
  });

  it("bearer mode keeps the device token of each sign-in and sends it with the next sign-in", async () => {
    const { auth } = server();
    const tokens: Array<string | null> = [];
    const client = createLatchkeyClient({
      baseURL: `${BASE}/auth`,
      auth: "bearer",
      fetch: (request) => auth.handler(request),
      onDeviceTokenChange: (token) => tokens.push(token),
    });
    await client.signUpEmail({ email: "ada@example.com", password: "correct horse battery" });
    await client.signInEmail({ email: "ada@example.com", password: "correct horse battery" });
    await client.signInEmail({ email: "ada@example.com", password: "correct horse battery" });
    // Sign-up, then two sign-ins: each rotated the token the previous one presented.
    expect(tokens).toHaveLength(3);
    expect(new Set(tokens).size).toBe(3);
  });
});
