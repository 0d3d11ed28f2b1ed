// The SQLite schema (also D1's), one module per feature: `drizzle.sqlite.config.ts` reads this module, so every
// table is exported here (and as the `schema` namespace of `@latchkey/drizzle-store/sqlite` and `/d1`).
export { apiKeys, sessions } from "./schema-access.ts";
export { invitations, members, organizations } from "./schema-organizations.ts";
export { auditEvents, counters, jwks } from "./schema-server.ts";
export { accounts, passkeys, twoFactor, users, verifications } from "./schema-users.ts";
