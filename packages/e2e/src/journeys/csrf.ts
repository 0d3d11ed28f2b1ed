import { equal, ok } from "../harness/assert.ts";
import { expectError, expectStatus } from "../harness/client.ts";
import type { Journey } from "../harness/journey.ts";
import { signUpWithPassword } from "../harness/sign-up.ts";

/** A state-changing request carrying the session cookie from an untrusted or unknown origin is refused. */
export const csrfJourney: Journey = {
  name: "CSRF: cookie requests from untrusted origins are refused",
  async run(context) {
    const { client } = context;
    const mallory = await signUpWithPassword(context, "csrf");

    const crossSite = await client.call("POST", "/sign-out", {
      cookie: mallory.cookie,
      origin: "https://evil.example",
    });
    expectError(crossSite, 403, "INVALID_ORIGIN", "sign-out from another origin");
    const noOrigin = await client.call("POST", "/sign-out", { cookie: mallory.cookie, origin: null });
    expectError(noOrigin, 403, "MISSING_ORIGIN", "sign-out without Origin or Referer");
    const nullOrigin = await client.call("POST", "/sign-out", { cookie: mallory.cookie, origin: "null" });
    expectError(nullOrigin, 403, "INVALID_ORIGIN", "sign-out with Origin: null");

    const still = expectStatus(
      await client.call("GET", "/get-session", { cookie: mallory.cookie }),
      200,
      "get-session",
    ) as { user?: { id: string } } | null;
    ok(still?.user, "the refused requests changed nothing: the session is alive");
    equal(still.user.id, mallory.userId, "the session is the same user's");

    // Bearer-only requests are not ambient credentials, so they skip the Origin check.
    const bearer = await client.call("POST", "/sign-out", { bearer: mallory.token });
    equal(expectStatus(bearer, 200, "Bearer sign-out without Origin"), { success: true }, "Bearer sign-out succeeds");
  },
};
