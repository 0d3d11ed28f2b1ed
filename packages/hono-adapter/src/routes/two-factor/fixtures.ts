import { twoFactor, type AuthEvent, type AuthPlugin, type TwoFactorOptions } from "@latchkey/core";
import { base32Decode, totp } from "@latchkey/core/internal";
import { bearer, createTestAuth } from "../../../test/test-auth.ts";

export const PASSWORD = "correct horse battery";
export const DAY = 86_400_000;
let ipSeq = 0;
export const ip = () => `198.19.${Math.floor(ipSeq / 250)}.${(ipSeq++ % 250) + 1}`;

export type Setup = { totpURI: string; secret: string; recoveryCodes: string[] };

/** Everything `createTestAuth` takes, besides `twoFactor()` (always installed) and the session settings. */
export type ExtraAuthOptions = Omit<Parameters<typeof createTestAuth>[0] & object, "plugins"> & {
  plugins?: AuthPlugin[];
};

export async function signedIn(options: TwoFactorOptions = {}, extra: ExtraAuthOptions = {}) {
  const { plugins = [], ...rest } = extra;
  const t = createTestAuth({
    session: { expiresIn: "30d", freshAge: "1d" },
    ...rest,
    plugins: [twoFactor(options), ...plugins],
  });
  const { token, userId } = await t.signUp("ada@example.com", PASSWORD);
  const headers = bearer(token);
  const post = (path: string, body: unknown) => t.request("POST", path, { body, headers, ip: ip() });
  const events: AuthEvent[] = [];
  t.auth.events.onAny((e) => void events.push(e));
  const record = () => t.store.twoFactor.find(userId);
  return { t, userId, headers, post, events, record };
}

/** The code of the authenticator app for `secret` at the clock's time, `steps` steps away. */
export function codeAt(
  secret: string,
  timeMs: number,
  steps = 0,
  options: { digits?: number; algorithm?: "SHA1" } = {},
) {
  const key = base32Decode(secret)!;
  return totp(key, timeMs + steps * 30_000, { digits: options.digits ?? 6, period: 30, algorithm: "SHA1" });
}

export async function enabledUser(options: TwoFactorOptions = {}, extra: ExtraAuthOptions = {}) {
  const s = await signedIn(options, extra);
  const res = await s.post("/two-factor/enable", { password: PASSWORD });
  if (res.status !== 200) throw new Error(`enable answered ${res.status}`);
  const setup = (await res.json()) as Setup;
  const verified = await s.post("/two-factor/verify-setup", { code: codeAt(setup.secret, s.t.clock.now()) });
  if (verified.status !== 200) throw new Error(`verify-setup answered ${verified.status}`);
  return { ...s, setup };
}

export async function codeOf(res: Response): Promise<string> {
  return ((await res.json()) as { code: string }).code;
}
