/**
 * The starter config `latchkey init` writes. The same text serves `.ts` and `.mjs`: only the parameter's type
 * annotation differs, so the TypeScript file type-checks under `strict` and the JavaScript one runs without a loader.
 */
export function starterConfig(typescript: boolean): string {
  const env = typescript ? "env: Record<string, string | undefined>" : "env";
  const name = typescript ? "name: string" : "name";
  return `// The options \`latchkey serve\` runs Latchkey with (the same ones createAuth takes in a JavaScript host).
// The default export is a function of the environment (it may be async) or a plain options object.
// Every option: https://github.com/latchkey/latchkey/blob/main/docs/options.md
import { apiKeys, emailOtp, jwt } from "@latchkey/core";
import { openDrizzleStore } from "@latchkey/drizzle-store";
// import { redisCounters } from "@latchkey/redis-store";

export default async (${env}) => {
  const required = (${name}) => {
    const value = env[name];
    if (!value) throw new Error(\`\${name} is not set (see the comments in latchkey.config)\`);
    return value;
  };
  // NODE_ENV=development: plain-HTTP cookies and emails printed in full on the console, for a laptop.
  const development = env.NODE_ENV === "development";
  // At least 32 characters; \`npx latchkey secret\` prints one. Keep it out of the repository.
  const secret = required("LATCHKEY_SECRET");
  // Where emails go (codes, links). Production needs a real sender: without one nothing is ever delivered, so
  // this config refuses to start. For example (npm install @latchkey/resend-sender):
  //   import { resendSender } from "@latchkey/resend-sender";
  //   const email = { sender: resendSender({ apiKey: required("RESEND_API_KEY") }), from: "auth@example.com" };
  const email = undefined;
  if (!email && !development)
    throw new Error(
      "no email sender: production needs email.sender in latchkey.config (see docs/email.md); NODE_ENV=development prints emails on the console instead",
    );
  // Browser front ends on other origins that call the API with the session cookie (comma-separated).
  const frontEnds = (env.LATCHKEY_TRUSTED_ORIGINS ?? "")
    .split(",")
    .map((origin) => origin.trim())
    .filter(Boolean);

  return {
    secret,
    // The public URL clients reach this server on: links in emails, the JWT issuer and audience, the CSRF origin.
    baseUrl: env.LATCHKEY_BASE_URL ?? (development ? "http://localhost:3000" : required("LATCHKEY_BASE_URL")),
    // Every endpoint lives under this prefix (POST /auth/sign-in/email, GET /auth/jwks, ...).
    basePath: "/auth",
    environment: development ? "development" : "production",
    cookies: { secure: !development },
    // postgres://user:password@host/db (with the pg driver installed) or file:./latchkey.db (@libsql/client).
    // Create the tables first: npx latchkey migrate --database "$LATCHKEY_DATABASE_URL"
    database: await openDrizzleStore(required("LATCHKEY_DATABASE_URL")),
    // Several instances behind a load balancer: rate-limit and lockout counters in Redis or Valkey.
    // counters: redisCounters({ url: required("REDIS_URL") }),
    trustedOrigins: frontEnds,
    // CORS for those front ends (credentials allowed); nothing is allowed cross-origin without it.
    cors: frontEnds.length > 0,
    // Behind a load balancer or reverse proxy, rate limits need the client's address from X-Forwarded-For:
    // run \`latchkey serve --proxy-hops 1\` (or set LATCHKEY_PROXY_HOPS), else every user shares the proxy's budget.
    ...(email ? { email } : {}),
    plugins: [
      // Short-lived JWTs at POST /auth/token, public keys at GET /auth/jwks: any language verifies them locally.
      jwt({ expiresIn: "15m" }),
      // Keys for machines, checked with POST /auth/api-key/verify. List what users may grant their own keys.
      apiKeys({ grantablePermissions: { reports: ["read"] } }),
      // Sign-in and verification by a one-time code sent by email.
      emailOtp(),
    ],
  };
};
`;
}
