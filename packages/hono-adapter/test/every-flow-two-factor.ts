import { base32Decode, totp } from "@latchkey/core/internal";
import type { FlowHarness, FlowKit } from "./every-flow-kit.ts";

/** Cleo, a new user by magic link, and her two-factor: setup, recovery codes, the second sign-in step, disable. */
export async function magicLinkAndTwoFactorFlows(h: FlowHarness, { keep, session, otp }: FlowKit): Promise<void> {
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
}
