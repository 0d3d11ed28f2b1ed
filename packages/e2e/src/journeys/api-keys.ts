import { equal, ok } from "../harness/assert.ts";
import { expectError, expectStatus } from "../harness/client.ts";
import type { Journey } from "../harness/journey.ts";
import { signUpWithPassword } from "../harness/sign-up.ts";

interface Created {
  apiKey: { id: string; name?: string | null };
  key: string;
}
interface Verified {
  valid: boolean;
  apiKey?: { id: string };
  error?: { code: string; message: string };
}

/** Create a key for the session, verify it, revoke it: the plain key is shown once and stops verifying. */
export const apiKeysJourney: Journey = {
  name: "API key create, verify and revoke (apiKeys plugin)",
  requiresPaths: ["/api-key/create", "/api-key/verify", "/api-key/delete"],
  async run(context) {
    const { client } = context;
    const anonymous = await client.call("POST", "/api-key/create", { body: { name: "ci" } });
    expectError(anonymous, 401, "INVALID_CREDENTIALS", "create without a session");

    const owner = await signUpWithPassword(context, "keys");
    const res = await client.call("POST", "/api-key/create", { bearer: owner.token, body: { name: "ci" } });
    const created = expectStatus(res, 200, "api-key/create") as Created;
    ok(typeof created.key === "string" && created.key.length >= 40, "create returns the plain key");
    equal(created.apiKey.name, "ci", "the key has its name");
    ok(!JSON.stringify(created.apiKey).includes(created.key), "the key record never contains the plain key");

    const good = expectStatus(
      await client.call("POST", "/api-key/verify", { body: { key: created.key } }),
      200,
      "verify",
    ) as Verified;
    equal(good.valid, true, "the new key verifies");
    equal(good.apiKey?.id, created.apiKey.id, "verify names the key");

    const bogus = expectStatus(
      await client.call("POST", "/api-key/verify", { body: { key: `${created.key}x` } }),
      200,
      "verify a bogus key",
    ) as Verified;
    equal(bogus.valid, false, "a bogus key does not verify");
    equal(bogus.error?.code, "INVALID_API_KEY", "a bogus key is INVALID_API_KEY");

    const deleted = await client.call("POST", "/api-key/delete", {
      bearer: owner.token,
      body: { keyId: created.apiKey.id },
    });
    equal(expectStatus(deleted, 200, "api-key/delete"), { success: true }, "the key is revoked");
    const revoked = expectStatus(
      await client.call("POST", "/api-key/verify", { body: { key: created.key } }),
      200,
      "verify a revoked key",
    ) as Verified;
    equal(revoked.valid, false, "a revoked key no longer verifies");
  },
};
