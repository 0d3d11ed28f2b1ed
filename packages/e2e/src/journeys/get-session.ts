import { equal } from "../harness/assert.ts";
import { expectStatus } from "../harness/client.ts";
import type { Journey } from "../harness/journey.ts";
import { signUpWithPassword } from "../harness/sign-up.ts";

interface SessionBody {
  user: { id: string; email: string };
  session: { id: string };
}

/** get-session honours the cookie and the Bearer header alike, and answers `null` otherwise. */
export const getSessionJourney: Journey = {
  name: "get-session by cookie and by Bearer",
  async run(context) {
    const { client } = context;
    const anonymous = await client.call("GET", "/get-session");
    equal(expectStatus(anonymous, 200, "anonymous get-session"), null, "no session answers null");

    const grace = await signUpWithPassword(context, "grace");
    const byCookie = expectStatus(
      await client.call("GET", "/get-session", { cookie: grace.cookie }),
      200,
      "get-session by cookie",
    ) as SessionBody;
    equal(byCookie.user.email, grace.email, "the cookie finds the user");
    const byBearer = expectStatus(
      await client.call("GET", "/get-session", { bearer: grace.token }),
      200,
      "get-session by Bearer",
    ) as SessionBody;
    equal(byBearer.user.id, grace.userId, "the Bearer token finds the same user");
    equal(byBearer.session.id, byCookie.session.id, "cookie and Bearer are the same session");

    const forged = await client.call("GET", "/get-session", { bearer: `${grace.token.slice(0, -2)}xx` });
    equal(expectStatus(forged, 200, "get-session with a forged token"), null, "a forged token finds nothing");
  },
};
