// Verifying the signed-in user's email with an emailed code: the Verify email page, and the invitation page when
// the invitee's address is not verified yet.
import { useState } from "react";
import { useSession } from "@latchkey/client/react";
import { ActionForm, Field, Notice } from "./shared.tsx";
import { auth } from "./client.ts";

/** `level`: the heading's level (1 on its own page, 2 inside another one). */
export function VerifyByCode({ level = 1 }: { level?: 1 | 2 }) {
  const { data } = useSession(auth);
  const [sent, setSent] = useState(false);
  const Heading = level === 1 ? "h1" : "h2";
  if (!data)
    return (
      <section>
        <p>Sign in first.</p>
      </section>
    );
  if (data.user.emailVerified)
    return (
      <section>
        <Notice>Your email {data.user.email} is verified.</Notice>
      </section>
    );
  const email = data.user.email;
  return (
    <section>
      <Heading>Verify your email</Heading>
      <ActionForm
        name="email me a verification code"
        submit={sent ? "Send another code" : "Email me a code"}
        run={async () => {
          const r = await auth.sendVerificationOtp({ email, purpose: "email-verification" });
          if (!r.error) setSent(true);
          return r;
        }}
      >
        <p>We will send a code to {email}.</p>
      </ActionForm>
      {sent && (
        <ActionForm name="verify email" submit="Verify" run={(f) => auth.verifyEmailOtp({ email, otp: f.otp! })}>
          <Field label="Code" name="otp" autoComplete="one-time-code" />
        </ActionForm>
      )}
    </section>
  );
}
