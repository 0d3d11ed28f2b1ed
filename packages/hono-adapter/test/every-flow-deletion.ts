import type { FlowHarness, FlowKit } from "./every-flow-kit.ts";

/** Bob, an OTP-only user deleted by emailed token; then Ada's sign-out and deletion by password (`t`, `p4`). */
export async function deletionFlows(
  h: FlowHarness,
  { keep, session, storedPasswordHash, otp }: FlowKit,
  t: string,
  p4: string,
): Promise<void> {
  // An OTP-only user: sign-up by code, set-password, delete-account by emailed token.
  await otp({ email: "bob@example.com", purpose: "sign-in" });
  await h.settle();
  const bob = await h.json<{ user: { id: string }; credentials: { token: string } }>("POST", "/sign-in/email-otp", {
    body: { email: "bob@example.com", otp: h.latest("bob@example.com", "sign-in") },
  });
  const bobToken = session(bob);
  await h.json("POST", "/set-password", {
    token: bobToken,
    body: { newPassword: keep("password", "bob's first password") },
  });
  await storedPasswordHash(bob.user.id);
  await h.json("POST", "/delete-account/request", { token: bobToken });
  const deleteToken = h.latest("bob@example.com", "delete-account");
  await h.json(
    "POST",
    "/delete-account/confirm",
    { body: { token: keep("forged delete token", `${deleteToken.slice(0, -2)}zz`) } },
    400,
  );
  await h.json("POST", "/delete-account/confirm", { body: { token: deleteToken } });

  // Ada: sign-out one session, then delete with the (wrong, then right) password.
  const other = session(await h.json("POST", "/sign-in/email", { body: { email: "ada@new.example", password: p4 } }));
  await h.json("POST", "/sign-out", { token: other });
  await h.json(
    "POST",
    "/delete-account",
    { token: t, body: { password: keep("password", "wrong delete password") } },
    401,
  );
  await h.json("POST", "/delete-account", { token: t, body: { password: p4 } });
  await h.json("GET", "/token", { token: t }, 401);
  await h.settle();
}
