import type { SequenceStep } from "autocannon";
import { take, totpCode } from "./pool.ts";
import { json, type Scenario } from "./scenario.ts";
import { signedInByCallback } from "./social.ts";

// The scenarios whose request spends a single-use credential from a pool seeded before each window: the second
// factors (two-factor code, magic link) and the social sign-in's callback.

export const twoFactorVerify: Scenario = {
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

export const magicLinkVerify: Scenario = {
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
export function socialCallback(serial: boolean): Scenario {
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
