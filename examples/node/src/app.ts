import { Hono } from "hono";
import { apiKeys, emailOtp, jwt, magicLink, twoFactor } from "@latchkey/core";
import { createAuth, type CreateAuthOptions } from "@latchkey/hono-adapter";

/**
 * The demo app: auth mounted at /auth, a protected /me route, console email, email OTP (with email change), magic
 * links, JWTs (/auth/token, /auth/jwks), two-factor (TOTP) and an API-key-protected /api/data route. src/server.ts adds the web pages.
 * Everything is passed in: the library itself reads no environment.
 */
export function createDemoApp(
  options: Pick<CreateAuthOptions, "secret" | "database" | "baseUrl"> & Partial<Omit<CreateAuthOptions, "plugins">>,
) {
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
    ],
    ...options,
  });
  const app = new Hono();
  app.use("*", auth.middleware);
  app.route("/auth", auth.app);
  app.get("/api", (c) =>
    c.json({
      name: "Latchkey demo",
      reference: "/auth/reference",
      me: "/me",
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
