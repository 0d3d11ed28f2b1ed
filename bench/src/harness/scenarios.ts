import type { SequenceStep } from "autocannon";
import type { LoadPlan } from "./load.ts";
import { type Pool, type PoolKind, take, totpCode } from "./pool.ts";
import type { Impl, ServerProcess } from "./process.ts";
import { SEED_PASSWORD, type Seed } from "./seed.ts";
import { signedInByCallback } from "./social.ts";

export type Feature = "jwt" | "apiKeys" | "emailOtp" | "secondFactor" | "social";

/** A load scenario run against both servers in the same server configuration. */
export interface Scenario {
  id: string;
  title: string;
  /** Server configuration: does get-session add the JWT header. */
  jwtHeader: boolean;
  needs: Feature[];
  /** The ratio Latchkey/Better Auth we aim for, per store (null: no target). */
  target: { memory: number | null; libsql: number | null };
  /**
   * The store work one request costs each side, read off the code (Latchkey's store and core, Better Auth 1.7.5's
   * adapter calls in its defaults): the reason behind a ratio.
   */
  work: string;
  /** What one operation is, for the table. */
  unit: "req" | "round trip";
  /**
   * Window multiplier for slow operations (password hashing): at 32 connections one request waits for the 31
   * ahead of it, so the windows must be long against that queue for the count to mean anything.
   */
  windowScale?: number;
  /**
   * The measured request spends a single-use credential: a pool of them is seeded in bulk before every window
   * (`POST /__bench/pool`, in the server, not timed), sized from the previous window's use (the first window from
   * `firstGuess`, per store); a window that runs out is measured again with a larger pool.
   */
  pool?: { kind: PoolKind; firstGuess: { memory: number; libsql: number; postgres: number } };
  /** Connections of the load generator when not the run's (`--connections`, 32 by default). */
  connections?: number;
  plan(
    impl: Exclude<Impl, "floor">,
    server: ServerProcess,
    seed: Seed,
    pool?: Pool,
  ): Omit<LoadPlan, "connections" | "warmupMs" | "measureMs">;
}

const json = (server: ServerProcess) => ({ "content-type": "application/json", origin: server.baseUrl });

/** Rotates through the seeded sessions so no single row or cache line serves every request. */
function rotating<T>(items: T[]): () => T {
  let next = 0;
  return () => {
    const item = items[next % items.length] as T;
    next += 1;
    return item;
  };
}

function getSession(jwtHeader: boolean): Scenario {
  return {
    id: jwtHeader ? "get-session-jwt" : "get-session",
    title: jwtHeader ? "get-session (cookie, JWT header on)" : "get-session (cookie, JWT header off)",
    jwtHeader,
    needs: jwtHeader ? ["jwt"] : [],
    work: jwtHeader
      ? "1 read (session joined to user; signing key cached) vs 3 reads (session, user, jwks), plus 1 Ed25519 signature each"
      : "1 read (session joined to user) vs 2 reads (session, then user)",
    target: { memory: 10, libsql: 10 },
    unit: "req",
    plan(_impl, _server, seed) {
      const cookie = rotating(seed.users.map((u) => u.cookie));
      const step: SequenceStep = {
        method: "GET",
        path: "/auth/get-session",
        setupRequest: (req) => ({ ...req, headers: { cookie: cookie() } }),
      };
      return {
        steps: [step],
        completesOn: 0,
        // A `null` body is a 200 too: count only answers that carry the session (and the header when it is on).
        check: (_s, _status, body, headers) =>
          body.includes('"session"') && (!jwtHeader || typeof headers["set-auth-jwt"] === "string"),
      };
    },
  };
}

function apiKeyVerify(kind: "unlimited" | "quota"): Scenario {
  return {
    id: `api-key-verify-${kind}`,
    title: kind === "unlimited" ? "API-key verify (unlimited key)" : "API-key verify (quota key)",
    jwtHeader: true,
    needs: ["apiKeys"],
    work:
      kind === "unlimited"
        ? "1 read (the key joined to its owner; lastUsedAt written at most once a minute) vs 1 read + 2 writes (lastRequest, updatedAt)"
        : "1 read (the key joined to its owner) + 1 conditional write (remaining) vs 1 read + 3 writes (remaining, lastRequest, updatedAt)",
    target: kind === "unlimited" ? { memory: null, libsql: 20 } : { memory: null, libsql: 5 },
    unit: "req",
    plan(_impl, server, seed) {
      if (!seed.keys) throw new Error("no API keys were seeded");
      const body = JSON.stringify({ key: seed.keys[kind] });
      // Better Auth's verify is server-only (no HTTP route): both libraries through the same thin route calling
      // their `auth.api.verifyApiKey` (bench/src/servers/shell.ts), so neither pays for a router the other skips.
      const path = "/bench/api-key/verify";
      return {
        steps: [{ method: "POST", path, headers: json(server), body }],
        completesOn: 0,
        check: (_s, _status, text) => text.includes('"valid":true'),
      };
    },
  };
}

const token: Scenario = {
  id: "token",
  title: "/token (session -> JWT)",
  jwtHeader: true,
  needs: ["jwt"],
  work: "1 read (session joined to user; signing key cached) vs 3 reads (session, user, jwks), plus 1 Ed25519 signature each",
  target: { memory: 5, libsql: 5 },
  unit: "req",
  plan(_impl, _server, seed) {
    const cookie = rotating(seed.users.map((u) => u.cookie));
    return {
      steps: [
        { method: "GET", path: "/auth/token", setupRequest: (req) => ({ ...req, headers: { cookie: cookie() } }) },
      ],
      completesOn: 0,
      check: (_s, _status, body) => body.includes('"token"'),
    };
  },
};

const jwks: Scenario = {
  id: "jwks",
  title: "/jwks",
  jwtHeader: true,
  needs: ["jwt"],
  work: "0 reads (public keys cached) vs 1 read (every jwks row)",
  target: { memory: 20, libsql: 20 },
  unit: "req",
  plan() {
    return {
      steps: [{ method: "GET", path: "/auth/jwks" }],
      completesOn: 0,
      check: (_s, _status, body) => body.includes('"keys"'),
    };
  },
};

const signIn: Scenario = {
  id: "sign-in",
  title: "password sign-in",
  jwtHeader: true,
  needs: [],
  work: "user and credential-account reads, 1 password verify (argon2id vs scrypt) and 1 session insert on each side",
  target: { memory: 5, libsql: 5 },
  unit: "req",
  windowScale: 2,
  plan(_impl, server, seed) {
    const email = rotating(seed.users.map((u) => u.email));
    return {
      steps: [
        {
          method: "POST",
          path: "/auth/sign-in/email",
          headers: json(server),
          setupRequest: (req) => ({ ...req, body: JSON.stringify({ email: email(), password: SEED_PASSWORD }) }),
        },
      ],
      completesOn: 0,
      check: (_s, _status, body) => body.includes('"user"'),
    };
  },
};

let otpCounter = 0;
const otpRoundTrip: Scenario = {
  id: "otp-round-trip",
  title: "OTP send + sign-in (new user)",
  jwtHeader: true,
  needs: ["emailOtp"],
  work: "each side: store the code, then check and consume it, create the user and a session (not counted statement by statement)",
  target: { memory: null, libsql: null },
  unit: "round trip",
  windowScale: 2,
  plan(impl, server) {
    const run = Date.now().toString(36);
    // Send, read the code the server captured in-process, sign in with it. The middle request is a private
    // route that costs both servers the same Map lookup.
    const send: SequenceStep = {
      method: "POST",
      path: "/auth/email-otp/send-verification-otp",
      headers: json(server),
      setupRequest: (req, context) => {
        otpCounter += 1;
        context.email = `otp-${run}-${otpCounter}@bench.test`;
        const purpose = impl === "latchkey" ? { purpose: "sign-in" } : { type: "sign-in" };
        return { ...req, body: JSON.stringify({ email: context.email, ...purpose }) };
      },
    };
    const read: SequenceStep = {
      method: "GET",
      setupRequest: (req, context) => ({
        ...req,
        path: `/__bench/otp?email=${encodeURIComponent(context.email as string)}`,
      }),
      onResponse: (status, body, context) => {
        if (status === 200) context.otp = (JSON.parse(body) as { otp: string }).otp;
      },
    };
    const signInOtp: SequenceStep = {
      method: "POST",
      path: "/auth/sign-in/email-otp",
      headers: json(server),
      setupRequest: (req, context) => ({
        ...req,
        body: JSON.stringify({ email: context.email, otp: context.otp ?? "000000" }),
      }),
    };
    return {
      steps: [send, read, signInOtp],
      completesOn: 2,
      check: (step, _status, body) => step !== 2 || body.includes('"user"'),
    };
  },
};

const twoFactorVerify: Scenario = {
  id: "two-factor-verify",
  title: "second step: TOTP code for a pending sign-in",
  jwtHeader: false,
  needs: ["secondFactor"],
  work: "5 reads (pending sign-in by token hash, user, two-factor record, accounts, lockout counters) + 4 writes (the code's time step by compare-and-set, lockout reset, pending row consumed and session inserted in one transaction) vs 5 reads (pending row, user, two-factor row, then each of the two rows it consumes) + 4 writes (attempts row and pending row deleted, lockout reset, session insert); both decrypt the secret (AES-256-GCM vs XChaCha20) and compute up to 3 HMAC-SHA-1 codes",
  target: { memory: null, libsql: null },
  unit: "req",
  pool: { kind: "two-factor", firstGuess: { memory: 12_000, libsql: 3_000, postgres: 3_000 } },
  plan(impl, server, _seed, pool) {
    if (!pool) throw new Error("two-factor-verify needs a seeded pool");
    // Latchkey's route and Better Auth's (its TOTP verify); the pending sign-in as each sets it: a cookie.
    const path = impl === "latchkey" ? "/auth/two-factor/verify" : "/auth/two-factor/verify-totp";
    return {
      steps: [
        {
          method: "POST",
          path,
          setupRequest: (req) => {
            const item = take(pool);
            // The authenticator app: the code of the current time step, computed here (not in the server).
            const code = totpCode(item.key ?? "", Date.now());
            return { ...req, headers: { ...json(server), cookie: item.credential }, body: JSON.stringify({ code }) };
          },
        },
      ],
      completesOn: 0,
      check: (_s, _status, body) => body.includes('"user"'),
    };
  },
};

const magicLinkVerify: Scenario = {
  id: "magic-link-verify",
  title: "magic-link verify (returning user)",
  jwtHeader: false,
  needs: ["secondFactor"],
  work: "3 reads (link by token hash, user by email, the user's accounts) + the second-factor gate's read + 2 writes (link consumed and session inserted in one transaction) vs 2 reads (link, user by email) + 2 writes (link consumed, session insert)",
  target: { memory: null, libsql: null },
  unit: "req",
  pool: { kind: "magic-link", firstGuess: { memory: 12_000, libsql: 3_000, postgres: 3_000 } },
  plan(impl, server, _seed, pool) {
    if (!pool) throw new Error("magic-link-verify needs a seeded pool");
    // Latchkey: the confirm page's POST (its GET only shows the page); Better Auth: the emailed link's GET, without
    // a callbackURL so it answers the session as JSON rather than a redirect.
    const step: SequenceStep =
      impl === "latchkey"
        ? {
            method: "POST",
            path: "/auth/magic-link/verify",
            setupRequest: (req) => ({
              ...req,
              headers: json(server),
              body: JSON.stringify({ token: take(pool).credential }),
            }),
          }
        : {
            method: "GET",
            setupRequest: (req) => ({
              ...req,
              path: `/auth/magic-link/verify?token=${encodeURIComponent(take(pool).credential)}`,
            }),
          };
    return { steps: [step], completesOn: 0, check: (_s, _status, body) => body.includes('"session"') };
  },
};

/**
 * The social sign-in's callback (issue 43): the provider's redirect back with a fresh code and state, and the
 * browser's state cookie, for a returning user (each subject signed in once before the first window). Both sides
 * redeem the code at the provider (a token request over loopback to another process) and verify the ID token
 * against the provider's JWKS (cached after the first); the provider's CPU is in its own process, not in either
 * column. `serial`: one callback at a time, so the latency is the wall time of one callback, not a queue's.
 */
function socialCallback(serial: boolean): Scenario {
  return {
    id: serial ? "social-callback-serial" : "social-callback",
    title: serial
      ? "social sign-in callback, one at a time (returning user)"
      : "social sign-in callback (returning user)",
    jwtHeader: false,
    needs: ["social"],
    work: "state: 1 read + 1 consume (sealed flow record opened) vs 1 read + 1 delete (its verification row, JSON); 1 token request to the provider; ID token verified against the cached JWKS and its nonce on both; account by (provider, subject) joined to its user, tokens sealed (AES-256-GCM) and written, session inserted vs account by (provider, subject), user read, account tokens written in plain, session inserted",
    target: { memory: null, libsql: null },
    unit: "req",
    ...(serial ? { connections: 1 } : {}),
    pool: {
      kind: "social-callback",
      firstGuess: serial
        ? { memory: 1_000, libsql: 1_000, postgres: 1_000 }
        : { memory: 3_000, libsql: 3_000, postgres: 3_000 },
    },
    plan(_impl, _server, _seed, pool) {
      if (!pool) throw new Error("social-callback needs a pool of started flows");
      return {
        steps: [
          {
            method: "GET",
            setupRequest: (req) => {
              const flow = take(pool);
              return { ...req, path: flow.path ?? "/", headers: { cookie: flow.credential } };
            },
          },
        ],
        completesOn: 0,
        okStatus: (status) => status === 302,
        check: (_s, status, _body, headers) => signedInByCallback(status, headers),
      };
    },
  };
}

/**
 * Order matters for fairness only through what a scenario leaves in the store: the read-only scenarios run
 * first, then the ones that add sessions (sign-in) and users (OTP), on both servers alike.
 */
export const SCENARIOS: Scenario[] = [
  getSession(true),
  getSession(false),
  apiKeyVerify("unlimited"),
  apiKeyVerify("quota"),
  token,
  jwks,
  signIn,
  otpRoundTrip,
  twoFactorVerify,
  magicLinkVerify,
  socialCallback(false),
  socialCallback(true),
];
