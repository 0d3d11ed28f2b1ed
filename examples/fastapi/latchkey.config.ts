// The Latchkey side of the example: `npx latchkey serve` reads this file (see README.md).
import { apiKeys, jwt } from "@latchkey/core";
import { openDrizzleStore } from "@latchkey/drizzle-store";

export default async (env: Record<string, string | undefined>) => {
  const required = (name: string) => {
    const value = env[name];
    if (!value) throw new Error(`${name} is not set`);
    return value;
  };
  return {
    secret: required("LATCHKEY_SECRET"),
    // The public URL of the auth server: the JWTs' `iss` and `aud`, which the FastAPI service checks.
    baseUrl: required("LATCHKEY_BASE_URL"),
    basePath: "/auth",
    database: await openDrizzleStore(env.LATCHKEY_DATABASE_URL ?? "file:./latchkey.db"),
    plugins: [
      // 15-minute JWTs, verified by the FastAPI service against GET /auth/jwks.
      jwt({ expiresIn: "15m" }),
      // Users may give their own keys reports:read, which GET /reports requires.
      apiKeys({ grantablePermissions: { reports: ["read"] } }),
    ],
  };
};
