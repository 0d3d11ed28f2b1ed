import { expect } from "vitest";
import type { Store } from "@latchkey/core";
import { base32Decode, totp } from "@latchkey/core/internal";

/** What the flows need from the test: an HTTP caller that records error bodies, and a secret keeper. */
export interface FlowHarness {
  store: Store;
  /** Sends a JSON request (Bearer `token` when given) and answers the parsed body, expecting `status` (200). */
  json<T = Record<string, unknown>>(
    method: string,
    path: string,
    init?: { body?: unknown; token?: string; headers?: Record<string, string> },
    status?: number,
  ): Promise<T>;
  /** Waits for background work (emails) the requests handed to `waitUntil`. */
  settle(): Promise<void>;
  /** The latest plaintext code or token sent to `identifier` for `purpose` (from `OtpGenerated`). */
  latest(identifier: string, purpose: string): string;
  /** Records a secret for the scan and returns it. */
  keep(label: string, value: string | null | undefined): string;
}

/**
 * Drives every flow of every feature over HTTP, keeping each secret it sees: sign-up to account deletion,
 * password sign-in (wrong and right), get-session with `set-auth-jwt`, JWTs, profile, verify/change/set
 * password, link verification, password reset by token and by OTP, email OTP of every purpose (wrong, right,
 * replayed), magic link (forged, right, replayed), two-factor (setup, wrong and right code, recovery codes, the second sign-in step with a recovery code and a trusted device, disable), email change, API keys (create, verify right/wrong/by header, list, update, delete, sweep),
 * sign-out, deletion by password and by emailed token. Needs `emailOtp({ codeLength: 10, emailChange:
 * { enabled: true } })`, `magicLink()`, `twoFactor()`, `apiKeys({ grantablePermissions: { files: ["read"] }, usage: true })`, `jwt()` and `auditLog()`.
 *
 * @example
 * await runEveryFlow(harness);
 */
export async function runEveryFlow(h: FlowHarness): Promise<void> {
  const { keep, store } = h;
  const session = (r: Record<string, unknown>) => keep("session token", (r.credentials as { token: string }).token);
  const storedPasswordHash = async (userId: string) => {
    const account = (await store.accounts.listByUser(userId)).find((a) => a.passwordHash);
    keep("stored password hash", account?.passwordHash);
  };

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

  // Email OTP of every purpose: sign-in (wrong, right, replay), check + verify-email, reset by OTP.
  const otp = (body: Record<string, unknown>) => h.json("POST", "/email-otp/send-verification-otp", { body });
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

  // API keys: create, verify (right, wrong, by header), list, update, delete, sweep.
  const created = await h.json<{ key: string; apiKey: { id: string } }>("POST", "/api-key/create", {
    token: t,
    body: { name: "ci", permissions: { files: ["read"] } },
  });
  const key = keep("API key", created.key);
  await h.json("POST", "/api-key/verify", { body: { key, permissions: { files: ["read"] } } });
  await h.json("POST", "/api-key/verify", { body: {}, headers: { "x-api-key": key } });
  const forged = keep("forged API key", `${key.slice(0, -4)}AAAA`);
  const failed = await h.json<{ valid: boolean }>("POST", "/api-key/verify", { body: { key: forged } });
  expect(failed.valid).toBe(false);
  await h.json("POST", "/api-key/verify", { body: { key, permissions: { files: ["write"] } } });
  await h.json("GET", "/api-key/list", { token: t });
  await h.json("POST", "/api-key/update", {
    token: t,
    body: { keyId: created.apiKey.id, name: "ci-2", enabled: false },
  });
  await h.json("POST", "/api-key/verify", { body: { key } });
  // Reroll with a grace: the new value once, both verify; the old one as deprecated. Usage per day.
  const rerolled = await h.json<{ key: string }>("POST", "/api-key/reroll", {
    token: t,
    body: { keyId: created.apiKey.id, gracePeriod: "1h" },
  });
  keep("rerolled API key", rerolled.key);
  await h.json("POST", "/api-key/update", { token: t, body: { keyId: created.apiKey.id, enabled: true } });
  await h.json("POST", "/api-key/verify", { body: { key: rerolled.key } });
  await h.json("POST", "/api-key/verify", { body: { key } });
  await h.json("GET", `/api-key/usage?keyId=${encodeURIComponent(created.apiKey.id)}&days=2`, { token: t });
  const second = await h.json<{ key: string; apiKey: { id: string } }>("POST", "/api-key/create", {
    token: t,
    body: { name: "temp" },
  });
  keep("API key", second.key);
  await h.json("POST", "/api-key/delete", { token: t, body: { keyId: second.apiKey.id } });
  await h.json("POST", "/api-key/delete-all-expired", { token: t });

  // A magic-link user: a forged link, the right one (a new user), its replay.
  await h.json("POST", "/sign-in/magic-link", { body: { email: "cleo@example.com", callbackURL: "/home" } });
  await h.settle();
  const magic = h.latest("cleo@example.com", "magic-link");
  const forgedMagic = keep("forged magic link token", `${magic.slice(0, -2)}zz`);
  await h.json("POST", "/magic-link/verify", { body: { token: forgedMagic } }, 400);
  const cleoToken = session(
    await h.json("POST", "/magic-link/verify", { body: { token: magic, callbackURL: "/home" } }),
  );
  await h.json("POST", "/magic-link/verify", { body: { token: magic } }, 400);

  // Two-factor for the magic-link user (a fresh session): setup, a wrong and a right code, new recovery codes, an
  // old recovery code refused, disable with a new one.
  const tf = await h.json<{ totpURI: string; secret: string; recoveryCodes: string[] }>("POST", "/two-factor/enable", {
    token: cleoToken,
    body: {},
  });
  keep("TOTP URI", tf.totpURI);
  const totpSecret = keep("TOTP secret", tf.secret);
  for (const code of tf.recoveryCodes) keep("recovery code", code);
  const current = totp(base32Decode(totpSecret)!, Date.now(), { digits: 6, period: 30, algorithm: "SHA1" });
  const wrongTotp = keep("wrong TOTP code", String((Number(current) + 500_000) % 1_000_000).padStart(6, "0"));
  await h.json("POST", "/two-factor/verify-setup", { token: cleoToken, body: { code: wrongTotp } }, 400);
  await h.json("POST", "/two-factor/verify-setup", { token: cleoToken, body: { code: keep("TOTP code", current) } });
  const fresh = await h.json<{ recoveryCodes: string[] }>("POST", "/two-factor/recovery-codes", {
    token: cleoToken,
    body: {},
  });
  for (const code of fresh.recoveryCodes) keep("recovery code", code);
  // Signing in with two-factor on: a pending sign-in, a wrong code, a recovery code; again with the next step's code
  // and a trusted device (window 1 accepts the next step now).
  // The first by emailed code, the second by a password set meanwhile (the magic link's resend cooldown is running).
  const secondStep = async (by: "password" | "sign-in") => {
    let pending: { twoFactorToken: string };
    if (by === "sign-in") {
      await otp({ email: "cleo@example.com", purpose: "sign-in" });
      await h.settle();
      const code = h.latest("cleo@example.com", "sign-in");
      pending = await h.json("POST", "/sign-in/email-otp", { body: { email: "cleo@example.com", otp: code } });
    } else {
      await h.json("POST", "/set-password", {
        token: cleoToken,
        body: { newPassword: keep("password", "cleo's own password") },
      });
      const body = { email: "cleo@example.com", password: "cleo's own password" };
      pending = await h.json("POST", "/sign-in/email", { body });
    }
    return keep("pending two-factor token", pending.twoFactorToken);
  };
  const firstPending = await secondStep("sign-in");
  const wrongStep = { code: wrongTotp, twoFactorToken: firstPending };
  await h.json("POST", "/two-factor/verify", { body: wrongStep }, 400);
  const recovery = { code: fresh.recoveryCodes[1], twoFactorToken: firstPending };
  session(await h.json("POST", "/two-factor/verify-recovery-code", { body: recovery }));
  const next = keep(
    "TOTP code",
    totp(base32Decode(totpSecret)!, Date.now() + 30_000, { digits: 6, period: 30, algorithm: "SHA1" }),
  );
  const trusted = await h.json<{ credentials: { trustedDeviceToken: string } }>("POST", "/two-factor/verify", {
    body: { code: next, trustDevice: true, twoFactorToken: await secondStep("password") },
  });
  session(trusted);
  keep("trusted-device token", trusted.credentials.trustedDeviceToken);
  await h.json("POST", "/two-factor/disable", { token: cleoToken, body: { code: tf.recoveryCodes[0] } }, 400);
  await h.json("POST", "/two-factor/disable", { token: cleoToken, body: { code: fresh.recoveryCodes[0] } });

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
