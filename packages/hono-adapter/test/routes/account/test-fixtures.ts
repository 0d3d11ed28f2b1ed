import { apiKeyRecord } from "@latchkey/test-support";
import { expect } from "vitest";
import { hashSecret, type AuthEvent } from "@latchkey/core";
import { bearer, type TestAuth } from "../../test-auth.ts";

// Shared by the account route tests (imported by *.test.ts files only).

export const PASSWORD = "correct horse battery";

/** A signed-in user whose account has no password (as OTP sign-in creates it). */
export async function passwordlessUser(t: TestAuth, email: string) {
  const { token, userId } = await t.signUp(email);
  await t.store.accounts.deleteAllExcept(userId, "EMAIL_OTP");
  const now = new Date(t.clock.now());
  await t.store.accounts.create({
    id: `otp-${userId}`,
    userId,
    providerId: "EMAIL_OTP",
    passwordHash: null,
    accountId: null,
    accessToken: null,
    refreshToken: null,
    idToken: null,
    accessTokenExpiresAt: null,
    refreshTokenExpiresAt: null,
    scope: null,
    createdAt: now,
    updatedAt: now,
  });
  return { token, userId };
}

export const signIn = (t: TestAuth, body: Record<string, string>, ip = "203.0.113.200") =>
  t.request("POST", "/sign-in/email", { body: { password: PASSWORD, ...body }, ip });

/** Gives the user rows of every auth-owned kind (sessions, API key, reset token), so a deletion has something to remove. */
export async function withEverything(t: TestAuth, email: string, extra: Record<string, unknown> = {}) {
  const signedUp = await t.signUp(email, PASSWORD, extra);
  const now = new Date(t.clock.now());
  await t.store.apiKeys.create(
    apiKeyRecord({
      id: `key-${signedUp.userId}`,
      userId: signedUp.userId,
      keyHash: hashSecret(`key-of-${email}`),
      createdAt: now,
      updatedAt: now,
    }),
  );
  await t.request("POST", "/request-password-reset", { body: { email }, ip: "192.0.2.90" });
  const second = await t.request("POST", "/sign-in/email", { body: { email, password: PASSWORD }, ip: "192.0.2.91" });
  return { ...signedUp, secondToken: (await second.json()).credentials.token as string };
}

/** Asserts that the user and every auth-owned row of theirs are gone from the store. */
export async function expectGone(
  t: TestAuth,
  user: { userId: string; token: string; secondToken: string },
  email: string,
) {
  expect(await t.store.users.findById(user.userId)).toBeNull();
  expect(await t.store.users.findByEmail(email)).toBeNull();
  expect(await t.store.sessions.findByTokenHash(hashSecret(user.token))).toBeNull();
  expect(await t.store.sessions.findByTokenHash(hashSecret(user.secondToken))).toBeNull();
  expect(await t.store.accounts.listByUser(user.userId)).toEqual([]);
  expect(await t.store.apiKeys.findById(`key-${user.userId}`)).toBeNull();
  expect(await t.store.verifications.findByIdentifier(`password-reset:${user.userId}`)).toBeNull();
}

/** Collects every event the auth emits. */
export function recordEvents(t: TestAuth): AuthEvent[] {
  const events: AuthEvent[] = [];
  t.auth.events.onAny((e) => void events.push(e));
  return events;
}

/** Requests a deletion email and returns the plaintext token (captured from OtpGenerated). */
export async function requestDeletion(t: TestAuth, token: string, email: string): Promise<string> {
  const res = await t.request("POST", "/delete-account/request", {
    headers: bearer(token),
    body: {},
    ip: `192.0.2.${Math.floor(Math.random() * 200)}`,
  });
  expect(res.status).toBe(200);
  expect(await res.json()).toEqual({ success: true });
  return t.auth.getOtp(email)!;
}
