import { equal, match, notEqual, ok } from "../harness/assert.ts";
import { cookieFrom, expectError, expectStatus } from "../harness/client.ts";
import type { Journey } from "../harness/journey.ts";

interface OtpSignIn {
  user: { id: string; email: string; emailVerified: boolean };
  session: { id: string };
  credentials?: { token: string };
}

/** Passwordless sign-in: request a code, read it from the `OtpGenerated` capture, sign in; the code is single-use. */
export const emailOtpJourney: Journey = {
  name: "email OTP sign-in (emailOtp plugin)",
  requiresPaths: ["/email-otp/send-verification-otp", "/sign-in/email-otp"],
  requiresOtpCapture: true,
  async run(context) {
    const { client, target } = context;
    const email = context.email("otto");
    const sent = await client.call("POST", "/email-otp/send-verification-otp", { body: { email, purpose: "sign-in" } });
    equal(expectStatus(sent, 200, "send-verification-otp"), { success: true }, "the send answers success");
    const code = await target.latestOtp!(email);
    match(code, /^\d{4,10}$/, "an OTP of digits was generated for the email");

    const wrongCode = code!.replace(/\d$/, (d) => String((Number(d) + 1) % 10));
    const wrong = await client.call("POST", "/sign-in/email-otp", { body: { email, otp: wrongCode } });
    expectError(wrong, 400, "INVALID_OTP", "sign-in with a wrong code");

    const res = await client.call("POST", "/sign-in/email-otp", { body: { email, otp: code, name: "Otto" } });
    const body = expectStatus(res, 200, "sign-in/email-otp") as OtpSignIn;
    equal(body.user.email, email, "OTP sign-in creates the user");
    equal(body.user.emailVerified, true, "a user created by OTP sign-in has a verified email");
    const cookie = cookieFrom(res);
    ok(cookie.includes("latchkey.session="), "OTP sign-in sets the session cookie");

    const replay = await client.call("POST", "/sign-in/email-otp", { body: { email, otp: code } });
    notEqual(replay.status, 200, "a consumed code cannot be replayed");

    const session = expectStatus(
      await client.call("GET", "/get-session", { cookie }),
      200,
      "get-session",
    ) as OtpSignIn | null;
    equal(session?.user.id, body.user.id, "the OTP session is live");
    if (target.store) {
      const stored = await target.store.users.findByEmail(email);
      equal(stored?.emailVerified, true, "the store holds the verified user");
    }
  },
};
