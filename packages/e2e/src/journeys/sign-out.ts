import { equal, match } from "../harness/assert.ts";
import { expectStatus } from "../harness/client.ts";
import type { Journey } from "../harness/journey.ts";
import { signUpWithPassword } from "../harness/sign-up.ts";

/** Sign-out deletes the session (cookie and Bearer stop working) and clears the cookie. */
export const signOutJourney: Journey = {
  name: "sign-out ends the session",
  async run(context) {
    const { client } = context;
    const linus = await signUpWithPassword(context, "linus");
    const res = await client.call("POST", "/sign-out", { cookie: linus.cookie });
    equal(expectStatus(res, 200, "sign-out"), { success: true }, "sign-out answers success");
    match(res.headers.get("set-cookie"), /Max-Age=0/i, "sign-out clears the cookie");

    const byCookie = await client.call("GET", "/get-session", { cookie: linus.cookie });
    equal(expectStatus(byCookie, 200, "get-session after sign-out"), null, "the old cookie finds no session");
    const byBearer = await client.call("GET", "/get-session", { bearer: linus.token });
    equal(expectStatus(byBearer, 200, "get-session after sign-out"), null, "the old token finds no session");
  },
};
