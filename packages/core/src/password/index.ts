export { argon2idHasher, argon2idEngine, portableArgon2idRaw, DEFAULT_ARGON2_PARAMS } from "./argon2.ts";
export type { PasswordHasher, Argon2Params, Argon2idRaw } from "./argon2.ts";
export { HashGate } from "./hash-gate.ts";
export type { HashGateLimits, HashGateStats } from "./hash-gate.ts";
export type { PasswordCheck, PasswordCheckContext, PasswordPolicyUser } from "./policy.ts";
export { pwnedPasswords } from "./pwned.ts";
export type { PwnedPasswordsOptions } from "./pwned.ts";
