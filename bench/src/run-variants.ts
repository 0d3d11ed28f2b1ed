import type { BetterAuthVariant } from "./harness/process.ts";

export interface Variant {
  /** What the rows' ids add to the scenario's (`<scenario>+<id>`). */
  id: string;
  /** A tuned Better Auth; absent: Better Auth's defaults. */
  variant?: BetterAuthVariant;
  /** Latchkey runs with its lookup cache on (`cache: {}`) in this configuration. */
  latchkeyCache?: boolean;
  /** Latchkey runs with its email send limits on (its defaults; the standard rows run them off). */
  latchkeySendLimits?: boolean;
  label: string;
  ids: string[];
  /** The store work per request with the variant, by scenario id. */
  work: Record<string, string>;
}
const JWT_WORK =
  "1 read (session joined to user; signing key cached) vs 2 reads (session joined to user where its adapter joins, jwks), plus 1 Ed25519 signature each";
export const VARIANTS: Variant[] = [
  {
    id: "joins",
    variant: "joins",
    label: "Better Auth with advanced.database.joins: true",
    ids: ["get-session", "get-session-jwt", "token"],
    work: {
      "get-session": "1 read (session joined to user) vs 1 read (session joined to user where its adapter joins)",
      "get-session-jwt": JWT_WORK,
      token: JWT_WORK,
    },
  },
  {
    id: "cookie-cache",
    variant: "cookie-cache",
    label: "Better Auth with session.cookieCache on (maxAge 1 h; a revoked session keeps working until it ends)",
    ids: ["get-session"],
    work: {
      "get-session": "1 read (session joined to user) vs 0 reads (the signed session_data cookie, checked by HMAC)",
    },
  },
  {
    id: "cookie-cache",
    variant: "cookie-cache",
    latchkeyCache: true,
    label:
      "Latchkey with cache on (every revocation reaches every instance) vs Better Auth with session.cookieCache on (a revoked session keeps working until it ends)",
    ids: ["get-session", "api-key-verify-unlimited", "api-key-verify-quota"],
    work: {
      "get-session":
        "0 reads (in-process cache, invalidated on every change) vs 0 reads (the signed session_data cookie)",
      "api-key-verify-unlimited":
        "0 reads (in-process cache; lastUsedAt written at most once a minute) vs 1 read + 2 writes (the cookie cache does not cover keys)",
      "api-key-verify-quota": "1 conditional write (the read cached) vs 1 read + 3 writes",
    },
  },
  {
    id: "argon2id",
    variant: "argon2id",
    label: "Better Auth hashing with argon2id m=19456 KiB t=2 p=1, as Latchkey",
    ids: ["sign-in"],
    work: {
      "sign-in":
        "user and credential-account reads, 1 argon2id verify (the same parameters) and 1 session insert on each side",
    },
  },
  {
    id: "send-limits",
    latchkeySendLimits: true,
    label:
      "Latchkey with its email send limits on (its defaults: a cooldown and a budget per recipient) vs Better Auth's defaults with its rate limiter off",
    ids: ["otp-round-trip"],
    work: {
      "otp-round-trip":
        "each side as in the standard row; Latchkey also counts the send against the recipient's cooldown and budget (1 more write)",
    },
  },
];
