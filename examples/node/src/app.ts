import { Hono } from "hono";
import { isIP } from "node:net";
import { apiKeys, emailOtp, jwt, magicLink, oauth, oidc, organizations, passkeys, twoFactor } from "@latchkey/core";
import { createAuth, type CreateAuthOptions } from "@latchkey/hono-adapter";

/** An OpenID provider the demo signs in with ("Sign in with Example ID"): `pnpm demo` starts a local one. */
export interface DemoSocialProvider {
  id: string;
  name: string;
  issuer: string;
  clientId: string;
  clientSecret: string;
}

/**
 * The demo app: auth mounted at /auth, a protected /me route, console email, email OTP (with email change), magic
 * links, JWTs (/auth/token, /auth/jwks), two-factor (TOTP), passkeys (when the app is on a host name), sign-in with
 * an OpenID provider when one is given, organizations (members, roles, invitations by email), and an API-key-protected
 * /api/data route. src/server.ts adds the web pages.
 * Everything is passed in: the library itself reads no environment.
 */
export function createDemoApp(
  options: Pick<CreateAuthOptions, "secret" | "database" | "baseUrl"> &
    Partial<Omit<CreateAuthOptions, "plugins">> & { socialProvider?: DemoSocialProvider },
) {
  const { socialProvider, ...authOptions } = options;
  const passkeyPlugin = demoPasskeys(options.baseUrl, options.trustedOrigins);
  const auth = createAuth({
    environment: "development",
    cookies: { secure: false },
    emailPassword: { allowUsernameChange: true },
    plugins: [
      emailOtp({ emailChange: { enabled: true } }),
      // POST /auth/sign-in/magic-link emails (prints) a link to the one-button page GET /auth/magic-link/verify.
      magicLink(),
      // Signed-in users may create keys carrying `demo: ["read"]` (POST /auth/api-key/create); each key's verifies
      // are counted per day for the usage chart (GET /auth/api-key/usage).
      apiKeys({ grantablePermissions: { demo: ["read"] }, usage: true }),
      jwt(),
      // Authenticator-app second factor: /two-factor in the web app (a QR code made on the page).
      twoFactor({ issuer: "Latchkey demo" }),
      // Organizations: the Organizations page (/organizations: list, create, make one the session's active one), the
      // Members page (/members: invite, change a role, remove, pending invitations) and the page the invitation
      // email links to (/accept-invitation?invitationId=..., the default invitationURL).
      organizations({ invitationExpiresIn: "48h" }),
      // Passkeys: the Passkeys page (/passkeys) and passkey sign-in (button and autofill) on the sign-in form.
      ...(passkeyPlugin ? [passkeyPlugin] : []),
      // "Sign in with Example ID" and the Connected accounts page. The provider's emails are verified ones it
      // issued itself, so a first sign-in may link to an account with that email (accountLinking.trustedProviders).
      ...(socialProvider
        ? [
            oauth({
              providers: [oidc(socialProvider)],
              accountLinking: { trustedProviders: [socialProvider.id] },
            }),
          ]
        : []),
    ],
    ...authOptions,
  });
  const app = new Hono();
  app.use("*", auth.middleware);
  app.route("/auth", auth.app);
  app.get("/api", (c) =>
    c.json({
      name: "Latchkey demo",
      socialProviders: socialProvider ? [{ id: socialProvider.id, name: socialProvider.name }] : [],
      reference: "/auth/reference",
      me: "/me",
      passkeys: passkeyPlugin !== null,
      jwks: "/auth/jwks",
      apiData: "/api/data (x-api-key)",
    }),
  );
  app.get("/me", auth.requireUser, (c) => c.json({ user: c.var.user, session: c.var.session }));
  app.get("/api/data", auth.requireApiKey({ permissions: { demo: ["read"] } }), (c) =>
    c.json({ owner: c.var.user.email, key: c.var.apiKey.name }),
  );
  return { app, auth };
}

/**
 * `passkeys()` for the demo: the relying party is the app's host (`localhost` for `http://localhost:3000`), and
 * responses may come from the app's origin or a trusted origin on that host or under it (a Vite dev server on
 * `http://localhost:5173`). Browsers refuse WebAuthn on an IP address (`http://127.0.0.1:3000` is not a valid
 * relying party), so an app on one goes without passkeys (null), as does one without a `baseUrl`. Sign-up with a
 * passkey alone is on (the sign-up page offers it; the email is then verified by code from the signed-in page).
 */
function demoPasskeys(baseUrl: string | undefined, trustedOrigins: readonly string[] = []) {
  if (baseUrl === undefined) return null;
  const app = new URL(baseUrl);
  const rpId = app.hostname;
  if (isIP(rpId.replace(/^\[|\]$/g, "")) !== 0) return null;
  const onHost = (origin: string) => {
    const host = URL.canParse(origin) ? new URL(origin).hostname : "";
    return host === rpId || host.endsWith(`.${rpId}`);
  };
  const origins = [app.origin, ...trustedOrigins.filter((o) => o !== app.origin && onHost(o))];
  return passkeys({ rpId, rpName: "Latchkey demo", origins, allowPasskeyOnlyAccounts: true });
}
