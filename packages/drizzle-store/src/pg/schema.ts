// The PostgreSQL schema, one module per feature: `drizzle.pg.config.ts` reads this module, so every table is
// exported here (and as the `schema` namespace of `@latchkey/drizzle-store/postgres`).
export { apiKeys, sessions } from "./schema-access.ts";
export { invitations, members, organizations } from "./schema-organizations.ts";
export { auditEvents, counters, jwks } from "./schema-server.ts";
export { accounts, passkeys, twoFactor, users, verifications } from "./schema-users.ts";
