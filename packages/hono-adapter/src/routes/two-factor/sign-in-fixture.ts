// The two-factor sign-in tests' helpers: a password sign-in, the second step, and what they leave behind.
import { codeAt, type enabledUser, ip, PASSWORD } from "./fixtures.ts";

export const EMAIL = "ada@example.com";
export const PENDING_COOKIE = "__Host-latchkey.two-factor";
export const TRUST_COOKIE = "__Host-latchkey.trusted-device";

export type Enabled = Awaited<ReturnType<typeof enabledUser>>;
export type Challenge = { twoFactorRequired: true; expiresAt: string; twoFactorToken?: string };

/** The value an answer's cookie `name` sets (null when it sets none; "" when it clears it). */
export function cookieOf(res: Response, name: string): string | null {
  const found = res.headers.getSetCookie().find((c) => c.startsWith(`${name}=`));
  return found === undefined ? null : found.slice(name.length + 1, found.indexOf(";"));
}

/** How many live sessions the user has (read, not removed). */
export async function sessionCount(s: Enabled): Promise<number> {
  return (await s.t.store.sessions.listByUser(s.userId)).length;
}

/** A password sign-in as a server or native app does it (no Origin): tokens come in the body. */
export function signIn(s: Enabled, headers: Record<string, string> = {}, password = PASSWORD) {
  return s.t.request("POST", "/sign-in/email", { body: { email: EMAIL, password }, headers, ip: ip() });
}

/** The next step's code: every step at or before the one that enabled two-factor is spent. */
export function nextCode(s: Enabled): string {
  s.t.clock.advance(30_000);
  return codeAt(s.setup.secret, s.t.clock.now());
}

export const verify = (s: Enabled, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  s.t.request("POST", "/two-factor/verify", { body, headers, ip: ip() });
