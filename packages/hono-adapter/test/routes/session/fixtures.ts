// The session route tests' shared setup: Ada on three devices and Grace on one, and what a test reads back.
import { expect } from "vitest";
import { hashSecret, type AuthEvent } from "@latchkey/core";
import type { TestAuth } from "../../test-auth.ts";

export const PASSWORD = "correct horse battery";

export function recordEvents(t: TestAuth): AuthEvent[] {
  const events: AuthEvent[] = [];
  t.auth.events.onAny((e) => void events.push(e));
  return events;
}

/** Signs the same user in again from another "device"; returns the new token. */
export async function signInAgain(t: TestAuth, email: string, userAgent: string, ip: string): Promise<string> {
  const res = await t.request("POST", "/sign-in/email", {
    body: { email, password: PASSWORD },
    headers: { "user-agent": userAgent },
    ip,
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { credentials: { token: string } }).credentials.token;
}

export async function live(t: TestAuth, token: string): Promise<boolean> {
  return (await t.store.sessions.findByTokenHash(hashSecret(token))) !== null;
}

/** Ada with three sessions (laptop first, then phone, then tablet, a minute apart) and Grace with one. */
export async function devices(t: TestAuth) {
  const ada = await t.signUp("ada@example.com", PASSWORD);
  t.clock.advance(60_000);
  const phone = await signInAgain(t, "ada@example.com", "Phone/1.0", "203.0.113.5");
  t.clock.advance(60_000);
  const tablet = await signInAgain(t, "ada@example.com", "Tablet/2.0", "203.0.113.6");
  const grace = await t.signUp("grace@example.com", PASSWORD);
  return { ada, laptop: ada.token, phone, tablet, grace };
}
