import type { SequenceStep } from "autocannon";
import { json, rotating, type Scenario } from "./scenario.ts";
import { SEED_PASSWORD } from "./seed.ts";

// The scenarios of the standard configurations: one request (or one OTP round trip) with nothing single-use to spend.

export function getSession(jwtHeader: boolean): Scenario {
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

export function apiKeyVerify(kind: "unlimited" | "quota"): Scenario {
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

export const token: Scenario = {
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

export const jwks: Scenario = {
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

export const signIn: Scenario = {
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
export const otpRoundTrip: Scenario = {
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
