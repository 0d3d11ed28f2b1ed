import { apiKeyRecord } from "@latchkey/test-support";
import { describe, expect, it } from "vitest";
import { hashSecret } from "@latchkey/core";
import { bearer, createTestAuth, type TestAuth } from "../../../test/test-auth.ts";
import { send, verify } from "./test-fixtures.ts";

// Review fix 30.2: the link flows (verify-email, reset-password) prove the mailbox like the OTP flows do.

const ATTACKER_PASSWORD = "attacker chose this one";

/** The attacker registers the victim's address with their own password, session and API key. */
async function preHijacked(t: TestAuth) {
  const { token, userId } = await t.signUp("victim@example.com", ATTACKER_PASSWORD);
  const now = new Date(t.clock.now());
  const keyHash = hashSecret("attacker-api-key");
  await t.store.apiKeys.create(
    apiKeyRecord({
      id: `key-${userId}`,
      userId,
      name: "attacker",
      start: "lk_attac",
      keyHash,
      createdAt: now,
      updatedAt: now,
    }),
  );
  return { attackerToken: token, userId, keyHash };
}

/** What get-session answers for a token: the session, or null. */
const sessionOf = async (t: TestAuth, token: string) =>
  (await t.request("GET", "/get-session", { headers: bearer(token) })).json();

async function expectAttackerOut(t: TestAuth, attack: { attackerToken: string; userId: string; keyHash: string }) {
  expect(await sessionOf(t, attack.attackerToken)).toBeNull();
  expect(await t.store.sessions.findByTokenHash(hashSecret(attack.attackerToken))).toBeNull();
  expect(await t.store.apiKeys.findByHash(attack.keyHash)).toBeNull();
  const signIn = await t.request("POST", "/sign-in/email", {
    body: { email: "victim@example.com", password: ATTACKER_PASSWORD },
    ip: "203.0.113.66",
  });
  expect(signIn.status).toBe(401);
  expect((await t.store.users.findById(attack.userId))!.emailVerified).toBe(true);
}

describe("pre-account hijacking through the link flows (review fix 30.2)", () => {
  it("the victim clicking the verification link removes the attacker's password, session and API keys", async () => {
    const t = createTestAuth();
    const attack = await preHijacked(t);
    await send(t, "victim@example.com");
    const res = await verify(t, "victim@example.com", t.auth.getOtp("victim@example.com")!);
    expect(res.status).toBe(200);
    await expectAttackerOut(t, attack);
    // The victim is signed in by the link.
    const victim = (await res.json()).credentials.token as string;
    expect(await sessionOf(t, victim)).not.toBeNull();
  });

  it("the victim resetting the password by link removes the attacker's sessions and API keys and verifies the email", async () => {
    const t = createTestAuth();
    const attack = await preHijacked(t);
    await t.request("POST", "/request-password-reset", { body: { email: "victim@example.com" }, ip: "192.0.2.80" });
    await t.settle();
    const token = t.auth.getOtp("victim@example.com")!;
    const res = await t.request("POST", "/reset-password", {
      body: { token, newPassword: "the victim's own passphrase" },
      ip: "192.0.2.81",
    });
    expect(res.status).toBe(200);
    await expectAttackerOut(t, attack);
    const victim = await t.request("POST", "/sign-in/email", {
      body: { email: "victim@example.com", password: "the victim's own passphrase" },
      ip: "192.0.2.82",
    });
    expect(victim.status).toBe(200);
  });

  it("a verification click that carries the user's own session keeps the password, that session and the API keys", async () => {
    const t = createTestAuth();
    const own = await preHijacked(t);
    await send(t, "victim@example.com");
    const res = await t.request("POST", "/verify-email", {
      body: { email: "victim@example.com", token: t.auth.getOtp("victim@example.com")! },
      headers: bearer(own.attackerToken),
      ip: "192.0.2.83",
    });
    expect(res.status).toBe(200);
    expect(await sessionOf(t, own.attackerToken)).not.toBeNull();
    expect(await t.store.apiKeys.findByHash(own.keyHash)).not.toBeNull();
    const signIn = await t.request("POST", "/sign-in/email", {
      body: { email: "victim@example.com", password: ATTACKER_PASSWORD },
      ip: "192.0.2.84",
    });
    expect(signIn.status).toBe(200);
  });
});
