import { equal, match, ok } from "../harness/assert.ts";
import { expectError, expectStatus } from "../harness/client.ts";
import type { Journey } from "../harness/journey.ts";
import { E2E_PASSWORD, signUpWithPassword } from "../harness/sign-up.ts";

/** Deleting the account with the password removes the user and its sessions and clears the cookie. */
export const deleteAccountJourney: Journey = {
  name: "delete account with the password",
  requiresPaths: ["/delete-account"],
  async run(context) {
    const { client, target } = context;
    expectError(
      await client.call("POST", "/delete-account", { body: { password: E2E_PASSWORD } }),
      401,
      "INVALID_CREDENTIALS",
      "delete-account without a session",
    );

    const user = await signUpWithPassword(context, "leaving");
    const wrong = await client.call("POST", "/delete-account", {
      cookie: user.cookie,
      body: { password: "not the password" },
    });
    expectError(wrong, 401, "INVALID_PASSWORD", "delete-account with a wrong password");
    const alive = expectStatus(
      await client.call("GET", "/get-session", { cookie: user.cookie }),
      200,
      "get-session",
    ) as { user: { id: string } } | null;
    equal(alive?.user.id, user.userId, "a refused deletion changes nothing");

    const res = await client.call("POST", "/delete-account", { cookie: user.cookie, body: { password: E2E_PASSWORD } });
    equal(expectStatus(res, 200, "delete-account"), { success: true }, "delete-account answers success");
    match(res.headers.get("set-cookie"), /Max-Age=0/i, "delete-account clears the cookie");

    equal(
      expectStatus(await client.call("GET", "/get-session", { bearer: user.token }), 200, "get-session"),
      null,
      "the session is gone",
    );
    const signIn = await client.call("POST", "/sign-in/email", { body: { email: user.email, password: E2E_PASSWORD } });
    expectError(signIn, 401, "INVALID_CREDENTIALS", "sign-in after deletion");
    if (target.store)
      ok((await target.store.users.findByEmail(user.email)) === null, "the user is gone from the store");
  },
};
