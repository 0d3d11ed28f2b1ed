// The admin route tests' shared setup: a test auth with admin() and the plugins a ban reaches, and its helpers.
import { admin, apiKeys, emailOtp, magicLink, twoFactor, type AuthEvent } from "@latchkey/core";
import { bearer, createTestAuth } from "../../../test/test-auth.ts";

export const PASSWORD = "correct horse battery";
let n = 0;
export const email = (what: string) => `${what}.${Date.now().toString(36)}.${n++}@example.com`;
export type Json = Record<string, unknown>;

export function setup() {
  const t = createTestAuth({ plugins: [admin(), apiKeys(), emailOtp(), magicLink(), twoFactor()] });
  const events: AuthEvent[] = [];
  t.auth.events.onAny((e) => void events.push(e));
  const json = async (res: Response) => (await res.json()) as Json;
  const call = (method: string, path: string, token: string | null, body?: unknown) =>
    t.request(method, path, { body, headers: token ? bearer(token) : {} });
  /** A signed-up user, made an admin by role when `role` is given. */
  async function user(what: string, role?: string) {
    const address = email(what);
    const { token, userId } = await t.signUp(address, PASSWORD);
    if (role) await t.auth.api.updateUser(userId, { appMetadata: { role } });
    return { email: address, token, userId };
  }
  const signIn = (address: string) =>
    t.request("POST", "/sign-in/email", { body: { email: address, password: PASSWORD } });
  return { t, events, json, call, user, signIn };
}
