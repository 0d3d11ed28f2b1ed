// The passkey route tests' shared setup: a test auth with passkeys() and Ada signed up, with a software authenticator.
import { expect } from "vitest";
import { passkeys, twoFactor, type AuthEvent, type PasskeyOptions } from "@latchkey/core";
import { BASE_URL, bearer, createTestAuth } from "../../test-auth.ts";
import { SoftwareAuthenticator, type CredentialJson } from "@latchkey/test-support/software-authenticator";

export const RP_ID = "app.example";

export const b64decode = (text: string) =>
  Uint8Array.from(atob(text.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0));
export const ORIGIN = BASE_URL;

export type Options = {
  challenge: string;
  rp: { id: string };
  user: { id: string };
  allowCredentials?: { id: string }[];
  rpId?: string;
  excludeCredentials?: { id: string }[];
  authenticatorSelection?: Record<string, unknown>;
  attestation?: string;
};

export async function setup(options: Partial<PasskeyOptions> = {}, extraPlugins: "two-factor" | null = null) {
  const plugin = passkeys({ rpId: RP_ID, rpName: "Example", ...options });
  const t = createTestAuth({ plugins: extraPlugins === "two-factor" ? [plugin, twoFactor()] : [plugin] });
  const events: AuthEvent[] = [];
  t.auth.events.onAny((e) => void events.push(e));
  const { token, userId } = await t.signUp("ada@example.com");
  const authenticator = new SoftwareAuthenticator({ origin: ORIGIN });
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    t.request("POST", path, { body, headers });
  const code = async (res: Response) => ((await res.json()) as { code: string }).code;

  async function registrationOptions(sessionToken = token) {
    const res = await post("/passkey/register/options", {}, bearer(sessionToken));
    expect(res.status).toBe(200);
    return (await res.json()) as { options: Options; challengeToken: string; expiresAt: string };
  }

  /** Registers a passkey of `who` with `device` (default: Ada's authenticator). */
  async function register(device = authenticator, sessionToken = token, name?: string) {
    const { options, challengeToken } = await registrationOptions(sessionToken);
    const response = await device.create(options);
    const res = await post("/passkey/register/verify", { response, challengeToken, name }, bearer(sessionToken));
    expect(res.status).toBe(200);
    return (await res.json()) as { id: string; credentialId: string; name: string | null };
  }

  async function signInOptions(body: { email?: string } = {}) {
    const res = await post("/passkey/authenticate/options", body);
    expect(res.status).toBe(200);
    return (await res.json()) as { options: Options; challengeToken: string };
  }

  const verify = (response: CredentialJson, challengeToken: string, extra: Record<string, unknown> = {}) =>
    post("/passkey/authenticate/verify", { response, challengeToken, ...extra });

  return { t, events, token, userId, authenticator, post, code, registrationOptions, register, signInOptions, verify };
}
