import type { FlowHarness, FlowKit } from "./every-flow-kit.ts";

/**
 * Ada's account by email and password: sign-up, sign-in, get-session and JWTs, sessions, profile, verify and change
 * password, link verification, password reset by token. Answers her id.
 */
export async function passwordFlows(h: FlowHarness, { keep, session, storedPasswordHash }: FlowKit): Promise<string> {
  // Email and password: sign-up, wrong and right sign-in, get-session (set-auth-jwt), JWT, sign-out.
  const p1 = keep("password", "first password of ada");
  const ada = await h.json<{ user: { id: string }; credentials: { token: string } }>("POST", "/sign-up/email", {
    body: { email: "ada@example.com", password: p1, username: "ada" },
  });
  const adaId = ada.user.id;
  session(ada);
  await storedPasswordHash(adaId);
  await h.json(
    "POST",
    "/sign-up/email",
    { body: { email: "ada@example.com", password: keep("password", "someone else's password") } },
    422,
  );
  await h.json(
    "POST",
    "/sign-in/email",
    { body: { email: "ada@example.com", password: keep("password", "a wrong password guess") } },
    401,
  );
  await h.json(
    "POST",
    "/sign-in/email",
    { body: { username: "ada", password: keep("password", "another wrong guess!") } },
    401,
  );
  let t = session(await h.json("POST", "/sign-in/email", { body: { email: "ada@example.com", password: p1 } }));
  await h.json("GET", "/get-session", { token: t });
  keep("JWT", (await h.json<{ token: string }>("POST", "/token", { token: t })).token);
  keep("JWT", (await h.json<{ token: string }>("GET", "/token", { token: t })).token);
  await h.json("GET", "/jwks");
  await h.json("GET", "/get-session", { token: keep("forged session token", "f".repeat(43)) });

  // Sessions: a second device (rememberMe: false), list, revoke it by id, then revoke every other one.
  const device = session(
    await h.json("POST", "/sign-in/email", { body: { email: "ada@example.com", password: p1, rememberMe: false } }),
  );
  const { sessions } = await h.json<{ sessions: Array<{ id: string; current: boolean }> }>("GET", "/list-sessions", {
    token: device,
  });
  await h.json("POST", "/revoke-session", { token: device, body: { sessionId: "no-such-session" } }, 404);
  await h.json("POST", "/revoke-session", { token: t, body: { sessionId: sessions.find((s) => s.current)!.id } });
  await h.json("POST", "/revoke-other-sessions", { token: t });

  // Profile, verify-password, change-password.
  await h.json("PATCH", "/user", { token: t, body: { name: "Ada Lovelace" } });
  await h.json("POST", "/verify-password", { token: t, body: { password: p1 } });
  await h.json("POST", "/verify-password", { token: t, body: { password: keep("password", "not the password") } }, 401);
  const p2 = keep("password", "second password of ada");
  await h.json(
    "POST",
    "/change-password",
    {
      token: t,
      body: {
        currentPassword: keep("password", "wrong current pw"),
        newPassword: keep("password", "never set password"),
      },
    },
    401,
  );
  await h.json("POST", "/change-password", {
    token: t,
    body: { currentPassword: p1, newPassword: p2, revokeOtherSessions: true },
  });
  await storedPasswordHash(adaId);

  // Link verification (send, wrong token, right token).
  await h.json("POST", "/send-verification-email", { body: { email: "ada@example.com" } });
  await h.settle();
  const link = h.latest("ada@example.com", "email-verification-link");
  await h.json(
    "POST",
    "/verify-email",
    { body: { email: "ada@example.com", token: keep("forged link token", `${link.slice(0, -2)}xx`) } },
    400,
  );
  t = session(await h.json("POST", "/verify-email", { body: { email: "ada@example.com", token: link } }));

  // Password reset by token (request, reset, replay).
  await h.json("POST", "/request-password-reset", { body: { email: "ada@example.com" } });
  await h.json("POST", "/request-password-reset", { body: { email: "nobody@example.com" } });
  await h.settle();
  const resetToken = h.latest("ada@example.com", "password-reset-link");
  const p3 = keep("password", "third password of ada");
  await h.json("POST", "/reset-password", { body: { token: resetToken, newPassword: p3 } });
  await h.json(
    "POST",
    "/reset-password",
    { body: { token: resetToken, newPassword: keep("password", "replayed reset pw") } },
    400,
  );
  await storedPasswordHash(adaId);
  t = session(await h.json("POST", "/sign-in/email", { body: { email: "ada@example.com", password: p3 } }));
  return adaId;
}
