import { expect } from "vitest";
import { apiKeys, type ApiKeysOptions, type AuthEvent } from "@latchkey/core";
import { bearer, createTestAuth, type TestAuth } from "../../test-auth.ts";

/** A test auth with the API-key plugin and every event recorded. */
export function setup(options: ApiKeysOptions = {}) {
  const t = createTestAuth({ plugins: [apiKeys(options)] });
  const events: AuthEvent[] = [];
  t.auth.events.onAny((e) => void events.push(e));
  return { t, events };
}

/** Signs a user up and returns Bearer headers for them. */
export async function signedIn(t: TestAuth, email = "ada@example.com") {
  const { token, userId } = await t.signUp(email);
  return { headers: bearer(token), userId };
}

/** Creates a key over HTTP (asserting 200) and returns the answer. */
export async function createKey(t: TestAuth, headers: Record<string, string>, body: Record<string, unknown> = {}) {
  const res = await t.request("POST", "/api-key/create", { body, headers });
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as { key: string; apiKey: { id: string; start: string; [k: string]: unknown } };
}
