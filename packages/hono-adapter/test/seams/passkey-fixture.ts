import { expect } from "vitest";
import { PASSKEYS_PLUGIN_ID, passkeys, type FullStore } from "@latchkey/core";
import type { ScheduleRun } from "@latchkey/test-support";
import { SoftwareAuthenticator } from "@latchkey/test-support/software-authenticator";
import { answerOf, freshEmail, PASSWORD, seamAuth } from "./harness.ts";
import { BASE_URL, bearer, type TestAuth } from "../test-auth.ts";
import { testStoreKind } from "../test-stores.ts";

// The worlds of the passkey pairs (passkey-registration.test.ts, passkey-sign-in.test.ts): a passkey user, a
// registration or a sign-in answered by a software authenticator and ready to send. Nothing here keeps state
// between calls.

/** Each world signs up, registers and signs ES256 responses: a smaller budget than the password pairs. */
export const passkeyBudget = () =>
  testStoreKind() === "memory" ? { exhaustiveLimit: 150, samples: 50 } : { exhaustiveLimit: 60, samples: 20 };

export const PAIR_TIMEOUT_MS = 120_000;

export type CreationOptions = Parameters<SoftwareAuthenticator["create"]>[0];
type RequestOptions = Parameters<SoftwareAuthenticator["get"]>[0];

export function passkeyAuth(store: FullStore) {
  return seamAuth(store, {
    plugins: [passkeys({ rpId: "app.example", rpName: "Example", allowPasskeyOnlyAccounts: true })],
  }) as unknown as TestAuth;
}

const service = (t: TestAuth) => t.auth.core.plugins.get(PASSKEYS_PLUGIN_ID)!.service;
const META = { ip: null, userAgent: null };

/** A verified password user with one passkey (registered through the service): the user, session and device. */
export async function passwordUserWithPasskey(t: TestAuth) {
  const email = freshEmail("pk");
  const { token, userId } = await t.signUp(email, PASSWORD);
  // Verified: a first proof of the mailbox (a reset link of an unverified user) would remove the passkey on purpose.
  const updated = await t.store.users.update(userId, { emailVerified: true, updatedAt: new Date(t.clock.now()) });
  if (!updated?.ok) throw new Error("could not mark the user verified");
  const device = new SoftwareAuthenticator({ origin: BASE_URL });
  const user = updated.value;
  const creation = await service(t).registrationOptions(user);
  const passkey = await service(t).register(
    user,
    { token: creation.token, response: await device.create(creation.options) },
    META,
  );
  return { email, token, userId, device, passkey };
}

/** Registration options of the session's user answered by a new authenticator: the verify body, ready to send. */
export async function pendingRegistration(t: TestAuth, session: string) {
  const res = await t.request("POST", "/passkey/register/options", { body: {}, headers: bearer(session) });
  expect(res.status).toBe(200);
  const { options, challengeToken } = (await res.json()) as { options: CreationOptions; challengeToken: string };
  const response = await new SoftwareAuthenticator({ origin: BASE_URL }).create(options);
  return { response, challengeToken };
}

/** A discoverable sign-in answered by `device`: the verify body, ready to send. */
export async function pendingSignIn(t: TestAuth, device: SoftwareAuthenticator) {
  const { options, token } = await service(t).authenticationOptions({});
  return { response: await device.get(options as RequestOptions), challengeToken: token };
}

export const statusOf = (run: ScheduleRun<unknown>, flow: string) => answerOf(run, flow).status;
