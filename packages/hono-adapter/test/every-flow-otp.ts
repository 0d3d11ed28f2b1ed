import type { FlowHarness, FlowKit } from "./every-flow-kit.ts";

/** Ada's email OTPs of every purpose and her email change by OTP; answers her last session token and password. */
export async function emailOtpFlows(
  h: FlowHarness,
  { keep, session, storedPasswordHash, otp }: FlowKit,
  adaId: string,
): Promise<{ t: string; p4: string }> {
  let t: string;
  // Email OTP of every purpose: sign-in (wrong, right, replay), check + verify-email, reset by OTP.
  await otp({ email: "ada@example.com", purpose: "sign-in" });
  await h.settle();
  const signInCode = h.latest("ada@example.com", "sign-in");
  await h.json(
    "POST",
    "/sign-in/email-otp",
    {
      body: {
        email: "ada@example.com",
        otp: keep("guessed code", signInCode === "0123456789" ? "9876543210" : "0123456789"),
      },
    },
    400,
  );
  t = session(await h.json("POST", "/sign-in/email-otp", { body: { email: "ada@example.com", otp: signInCode } }));
  await h.json("POST", "/sign-in/email-otp", { body: { email: "ada@example.com", otp: signInCode } }, 400);
  await otp({ email: "ada@example.com", purpose: "email-verification" });
  await h.settle();
  const verifyCode = h.latest("ada@example.com", "email-verification");
  await h.json("POST", "/email-otp/check-verification-otp", {
    body: { email: "ada@example.com", purpose: "email-verification", otp: verifyCode },
  });
  await h.json("POST", "/email-otp/verify-email", { body: { email: "ada@example.com", otp: verifyCode } });
  await h.json("POST", "/email-otp/request-password-reset", { body: { email: "ada@example.com" } });
  await h.settle();
  const p4 = keep("password", "fourth password of ada");
  await h.json("POST", "/email-otp/reset-password", {
    body: { email: "ada@example.com", otp: h.latest("ada@example.com", "password-reset"), password: p4 },
  });
  await storedPasswordHash(adaId);
  t = session(await h.json("POST", "/sign-in/email", { body: { email: "ada@example.com", password: p4 } }));

  // Email change by OTP (wrong code, right code).
  await h.json("POST", "/email-otp/request-email-change", { token: t, body: { newEmail: "ada@new.example" } });
  await h.settle();
  const changeCode = h.latest("ada@new.example", "email-change");
  await h.json(
    "POST",
    "/email-otp/change-email",
    {
      token: t,
      body: {
        newEmail: "ada@new.example",
        otp: keep(
          "guessed code",
          changeCode.replace(/^./, (d) => String((Number(d) + 1) % 10)),
        ),
      },
    },
    400,
  );
  await h.json("POST", "/email-otp/change-email", { token: t, body: { newEmail: "ada@new.example", otp: changeCode } });
  return { t, p4 };
}
