import { equal, match, notEqual, ok } from "../harness/assert.ts";
import { cookieFrom, expectError, expectStatus } from "../harness/client.ts";
import type { Journey } from "../harness/journey.ts";
import { E2E_PASSWORD, signUpWithPassword } from "../harness/sign-up.ts";

/** Sign-up then sign-in with a password: new token on each sign-in, uniform failures, effect in the store. */
export const passwordJourney: Journey = {
  name: "sign-up and sign-in with a password",
  async run(context) {
    const { client, target } = context;
    const ada = await signUpWithPassword(context, "ada");
    if (target.store) {
      const stored = await target.store.users.findByEmail(ada.email);
      equal(stored?.id, ada.userId, "the user is in the store");
    }

    const again = await client.call("POST", "/sign-up/email", { body: { email: ada.email, password: E2E_PASSWORD } });
    expectError(again, 422, "USER_ALREADY_EXISTS", "second sign-up with the same email");

    const wrong = await client.call("POST", "/sign-in/email", {
      body: { email: ada.email, password: "not the password" },
    });
    expectError(wrong, 401, "INVALID_CREDENTIALS", "sign-in with a wrong password");
    const unknown = await client.call("POST", "/sign-in/email", {
      body: { email: context.email("nobody"), password: E2E_PASSWORD },
    });
    expectError(unknown, 401, "INVALID_CREDENTIALS", "sign-in with an unknown email");

    const res = await client.call("POST", "/sign-in/email", {
      body: { email: ada.email.toUpperCase(), password: E2E_PASSWORD },
    });
    const body = expectStatus(res, 200, "sign-in") as {
      user: { id: string };
      session: { id: string };
      credentials: { token: string };
    };
    equal(body.user.id, ada.userId, "sign-in finds the user (email is case-insensitive)");
    notEqual(body.credentials.token, ada.token, "sign-in issues a new token (no fixation)");
    ok(typeof body.session.id === "string", "sign-in returns the session");
    match(res.headers.get("cache-control"), /no-store/, "a token response is not cached");
    const setCookie = res.headers.get("set-cookie") ?? "";
    match(setCookie, /HttpOnly/i, "the session cookie is HttpOnly");
    match(setCookie, /SameSite=Lax/i, "the session cookie is SameSite=Lax");
    ok(cookieFrom(res).endsWith(`=${body.credentials.token}`), "the cookie carries the new token");
  },
};
