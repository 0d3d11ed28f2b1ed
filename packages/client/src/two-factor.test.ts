import { describe, expect, it } from "vitest";
import { argon2idHasher, twoFactor, webCryptoRandom } from "@latchkey/core";
import { base32Decode, createTestClock, totp } from "@latchkey/core/internal";
import { createAuth } from "@latchkey/hono-adapter";
import { memoryStore } from "@latchkey/memory-store";
import { createLatchkeyClient } from "./index.ts";

const BASE = "https://app.example";

describe("@latchkey/client with twoFactor()", () => {
  it("bearer mode: the second step sends the pending sign-in by itself, and a trusted device skips it next time", async () => {
    const clock = createTestClock(Date.UTC(2026, 5, 1, 12, 0, 0));
    const store = memoryStore();
    const auth = createAuth({
      clock,
      secret: "client-test-0123456789abcdefghijklmnopqrstuvwxyz",
      baseUrl: BASE,
      database: store,
      passwordHasher: argon2idHasher({
        random: webCryptoRandom,
        params: { memoryCost: 256, timeCost: 1, parallelism: 1 },
      }),
      email: { sender: { async send() {} } },
      getClientIp: () => "192.0.2.10",
      plugins: [twoFactor()],
    });
    const trusted: Array<string | null> = [];
    const client = createLatchkeyClient({
      baseURL: `${BASE}/auth`,
      auth: "bearer",
      fetch: (r) => auth.handler(r),
      onTrustedDeviceTokenChange: (t) => trusted.push(t),
    });
    const credentials = { email: "ada@example.com", password: "correct horse battery" };
    expect((await client.signUpEmail(credentials)).error).toBeNull();
    const setup = await client.enableTwoFactor({ password: credentials.password });
    const key = base32Decode(setup.data!.secret)!;
    const code = () => totp(key, clock.now(), { digits: 6, period: 30, algorithm: "SHA1" });
    expect((await client.verifyTwoFactorSetup({ code: code() })).error).toBeNull();
    await client.signOut();

    const first = await client.signInEmail(credentials);
    expect(first.data).toMatchObject({ twoFactorRequired: true });
    expect(client.getBearerToken()).toBeNull();
    clock.advance(30_000);
    // No token passed: the client sends the pending sign-in it kept (`latchkey-two-factor`).
    const done = await client.verifyTwoFactor({ code: code(), trustDevice: true });
    expect(done.error).toBeNull();
    const token = client.getBearerToken()!;
    const session = await auth.api.getSession(token);
    expect(session?.user.email).toBe("ada@example.com");
    expect(trusted).toHaveLength(1);
    await client.signOut();

    const again = await client.signInEmail(credentials);
    expect(again.data).toMatchObject({ user: { email: "ada@example.com" } });
    expect(await auth.api.getSession(client.getBearerToken()!)).not.toBeNull();
  });
});
