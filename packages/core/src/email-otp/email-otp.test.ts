import { signedIn } from "../session/sign-in-gate.ts";
import { createHmac, hkdfSync } from "node:crypto";
import { describe, expect, it } from "vitest";
import { memoryStore } from "@latchkey/memory-store";
import { AuthConfigError, type AuthError } from "../errors/errors.ts";
import { createAuthCore } from "../auth/auth-core.ts";
import { SERVER_CALL } from "../kernel/request-meta.ts";
import { argon2idHasher } from "../password/argon2.ts";
import { createTestClock, webCryptoRandom, type Random } from "../ports/clock.ts";
import { hashSecret } from "../crypto/crypto.ts";
import { DEFAULT_TEMPLATES } from "../email/email.ts";
import { emailOtp, EMAIL_OTP_PLUGIN_ID } from "./plugin.ts";
import type { EmailOtpOptions } from "./options.ts";
import { otpTemplateSources, resolveEmailOtpOptions } from "./options.ts";
import { otpIdentifier } from "./otp-codes.ts";

function fieldOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    if (error instanceof AuthConfigError) return error.field;
    throw error;
  }
  return undefined;
}

function setup(
  options: EmailOtpOptions = {},
  random: Random = webCryptoRandom,
  hooks: Parameters<typeof createAuthCore>[0]["hooks"] = undefined,
) {
  const store = memoryStore();
  const core = createAuthCore({
    secret: "s".repeat(32),
    database: store,
    baseUrl: "https://app.example",
    clock: createTestClock(),
    random,
    passwordHasher: argon2idHasher({
      random: webCryptoRandom,
      params: { memoryCost: 256, timeCost: 1, parallelism: 1 },
    }),
    // These tests issue many codes to one address in a row; the per-recipient limits are tested over HTTP.
    email: { sender: { send: async () => {} }, perRecipient: false, resendCooldown: false, recipientCap: false },
    plugins: [emailOtp(options)],
    captureOtp: true,
    ...(hooks ? { hooks } : {}),
  });
  return { core, store, feature: core.plugins.get(EMAIL_OTP_PLUGIN_ID)! };
}

describe("emailOtp options", () => {
  it("defaults: 6 digits, 5 minutes, 3 attempts, sign-up allowed, email change off", () => {
    expect(resolveEmailOtpOptions()).toEqual({
      codeLength: 6,
      expiresInMs: 300_000,
      maxAttempts: 3,
      allowSignUp: true,
      emailChange: { enabled: false, verifyCurrentEmail: false },
      templates: {},
    });
    expect(resolveEmailOtpOptions({ expiresIn: "30s", codeLength: 10 })).toMatchObject({
      expiresInMs: 30_000,
      codeLength: 10,
    });
  });

  it("emailOtp() itself throws AuthConfigError naming the bad option", () => {
    expect(fieldOf(() => emailOtp({ codeLength: 3 }))).toBe("emailOtp.codeLength");
    expect(fieldOf(() => emailOtp({ codeLength: 11 }))).toBe("emailOtp.codeLength");
    expect(fieldOf(() => emailOtp({ maxAttempts: 0 }))).toBe("emailOtp.maxAttempts");
    expect(fieldOf(() => emailOtp({ expiresIn: "5 minutes" as never }))).toBe("emailOtp.expiresIn");
    expect(fieldOf(() => emailOtp({ allowSignUp: "no" as never }))).toBe("emailOtp.allowSignUp");
    expect(fieldOf(() => emailOtp({ emailChange: { verifyCurrentEmail: 1 as never } }))).toBe(
      "emailOtp.emailChange.verifyCurrentEmail",
    );
    expect(fieldOf(() => emailOtp({ templates: { "otp-signin.subject": "x" } }))).toBe(
      'emailOtp.templates["otp-signin.subject"]',
    );
    expect(fieldOf(() => emailOtp({ templates: { "otp.txt": 5 as never } }))).toBe('emailOtp.templates["otp.txt"]');
    expect(fieldOf(() => emailOtp({ codeLength: 4, maxAttempts: 100 }))).toBeUndefined();
  });

  it("template sources: plugin per-purpose, then global per-purpose, then plugin otp.*, global otp.*, built-in", () => {
    const sources = otpTemplateSources(
      { "otp-sign-in.subject": "P-signin", "otp.txt": "P-txt" },
      { "otp-sign-in.txt": "G-signin-txt", "otp.subject": "G-subject", "otp-email-change.html": "G-change-html" },
    );
    expect(sources["otp-sign-in.subject"]).toBe("P-signin");
    expect(sources["otp-sign-in.txt"]).toBe("G-signin-txt");
    expect(sources["otp-password-reset.subject"]).toBe("G-subject");
    expect(sources["otp-password-reset.txt"]).toBe("P-txt");
    expect(sources["otp-password-reset.html"]).toBe(DEFAULT_TEMPLATES["otp.html"]);
    expect(sources["otp-email-change.html"]).toBe("G-change-html");
  });
});

describe("OTP codes", () => {
  it("are drawn uniformly over all codeLength-digit strings, leading zeros kept", async () => {
    const { core, feature } = setup({ codeLength: 4 });
    const counts = Array.from({ length: 4 }, () => new Array<number>(10).fill(0));
    const n = 3000;
    let leadingZero = 0;
    for (let i = 0; i < n; i++) {
      await feature.service.codes.issueTo(
        { purpose: "sign-in", identifier: "otp:sign-in:x@example.com", email: "x@example.com" },
        { userId: null, payload: null },
        SERVER_CALL,
        null,
      );
      const code = core.getOtp("x@example.com")!;
      expect(code).toMatch(/^[0-9]{4}$/);
      if (code.startsWith("0")) leadingZero++;
      for (let p = 0; p < 4; p++) counts[p]![Number(code[p])]!++;
    }
    // Expected 300 per digit and position (sd ~16); 6 sd either side.
    for (const c of counts.flat()) {
      expect(c).toBeGreaterThan(200);
      expect(c).toBeLessThan(400);
    }
    expect(leadingZero).toBeGreaterThan(200);
  });

  it("come from the injected CSPRNG (all-zero bytes give an all-zero code) and only their keyed hash is stored", async () => {
    const zeros: Random = { bytes: (k) => new Uint8Array(k) };
    const { core, store, feature } = setup({ codeLength: 6 }, zeros);
    await feature.service.send({ email: "x@example.com", purpose: "sign-in" }, SERVER_CALL);
    expect(core.getOtp("x@example.com")).toBe("000000");
    const identifier = otpIdentifier("sign-in", "x@example.com");
    // HMAC-SHA-256 under HKDF-SHA-256(secret), computed with node:crypto, an implementation independent of core's.
    const key = Buffer.from(hkdfSync("sha256", "s".repeat(32), "latchkey/otp-code", "hmac-sha-256 v1", 32));
    const expected = createHmac("sha256", key).update(`${identifier}\u0000000000`).digest("base64url");
    const row = (await store.verifications.findByIdentifier(identifier))!;
    expect(row.valueHash).toBe(expected);
    expect(row.valueHash).not.toBe(hashSecret("000000"));
  });

  it("parallel wrong codes destroy the row exactly once (one TOO_MANY_ATTEMPTS), never more attempts than maxAttempts", async () => {
    const { core, store, feature } = setup({ maxAttempts: 3 });
    await feature.service.send({ email: "x@example.com", purpose: "sign-in" }, SERVER_CALL);
    const wrong = core.getOtp("x@example.com") === "111111" ? "222222" : "111111";
    const failed: number[] = [];
    core.events.on("OtpVerifyFailed", (e) => void failed.push(e.attemptCount));
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, () =>
        feature.service.check({ email: "x@example.com", purpose: "sign-in", otp: wrong }, SERVER_CALL),
      ),
    );
    const codes = results.map((r) => (r.status === "rejected" ? (r.reason as AuthError).code : "ok"));
    expect(codes.filter((c) => c === "TOO_MANY_ATTEMPTS")).toHaveLength(1);
    expect(codes.filter((c) => c === "INVALID_OTP")).toHaveLength(9);
    expect(Math.max(...failed)).toBe(3);
    expect(await store.verifications.findByIdentifier(otpIdentifier("sign-in", "x@example.com"))).toBeNull();
  });

  it("server calls validate the code format like HTTP does", async () => {
    const { feature } = setup();
    for (const otp of ["12345", "1234567", "abcdef", 123456 as never]) {
      await expect(
        feature.service.check({ email: "x@example.com", purpose: "sign-in", otp }, SERVER_CALL),
      ).rejects.toMatchObject({ code: "INVALID_REQUEST" });
    }
  });
});

describe("OTP sign-in with sign-up off", () => {
  it("looks the user up once, for a known and for an unknown email", async () => {
    const { core, store, feature } = setup({ allowSignUp: false });
    const signedUp = await core.api.signUp({ email: "ada@example.com", password: "correct horse battery" });
    expect("user" in signedUp).toBe(true);
    await feature.service.send({ email: "ada@example.com", purpose: "sign-in" }, SERVER_CALL);
    const otp = core.getOtp("ada@example.com")!;
    const findByEmail = store.users.findByEmail.bind(store.users);
    const looked: string[] = [];
    store.users.findByEmail = async (email) => {
      looked.push(email);
      return findByEmail(email);
    };
    const result = signedIn(await feature.service.signIn({ email: "ada@example.com", otp }, SERVER_CALL));
    expect(result.user.email).toBe("ada@example.com");
    expect(looked).toEqual(["ada@example.com"]);
    looked.length = 0;
    const unknown = await feature.service
      .signIn({ email: "nobody@example.com", otp: "123456" }, SERVER_CALL)
      .catch((error: AuthError) => error);
    expect((unknown as AuthError).code).toBe("INVALID_CREDENTIALS");
    expect(looked).toEqual(["nobody@example.com"]);
  });
});

describe("OTP sign-in of a new user: the store work", () => {
  it("one user lookup before the code, the code spent inside the transaction, no counter written without failures", async () => {
    const { core, store, feature } = setup();
    await feature.service.send({ email: "new@example.com", purpose: "sign-in" }, SERVER_CALL);
    const otp = core.getOtp("new@example.com")!;
    const calls: string[] = [];
    const spy = <T extends object>(port: T, name: string, methods: Array<keyof T>) => {
      for (const method of methods) {
        const original = (port[method] as (...args: unknown[]) => unknown).bind(port);
        (port as Record<keyof T, unknown>)[method] = (...args: unknown[]) => {
          calls.push(`${name}.${String(method)}`);
          return original(...args);
        };
      }
    };
    spy(store.users, "users", ["findByEmail"]);
    spy(store.verifications, "verifications", ["consume"]);
    spy(store.counters, "counters", ["hit", "delete"]);
    // The store object core holds (the memory store with its counters keyed), whose transaction the flow opens.
    const held = core.ctx.store;
    const transaction = held.transaction.bind(held);
    held.transaction = (body) => {
      calls.push("transaction");
      return transaction(body);
    };
    const result = signedIn(await feature.service.signIn({ email: "new@example.com", otp }, SERVER_CALL));
    expect(result.user.email).toBe("new@example.com");
    // Outside the transaction: one lookup, no consume, no counter write (the lockout had nothing to clear).
    expect(calls.slice(0, calls.indexOf("transaction"))).toEqual(["users.findByEmail"]);
    expect(calls).not.toContain("counters.delete");
    expect(calls).not.toContain("counters.hit");
    expect(await store.verifications.findByIdentifier(otpIdentifier("sign-in", "new@example.com"))).toBeNull();
    await expect(feature.service.signIn({ email: "new@example.com", otp }, SERVER_CALL)).rejects.toMatchObject({
      code: "INVALID_OTP",
    });
  });

  it("a right code after wrong ones clears the failures it found", async () => {
    const { core, store, feature } = setup();
    const deleted: string[] = [];
    const remove = store.counters.delete.bind(store.counters);
    store.counters.delete = (key) => {
      deleted.push(key.split(":")[0]!);
      return remove(key);
    };
    await feature.service.send({ email: "new@example.com", purpose: "sign-in" }, SERVER_CALL);
    const otp = core.getOtp("new@example.com")!;
    const wrong = otp === "000000" ? "111111" : "000000";
    await expect(feature.service.signIn({ email: "new@example.com", otp: wrong }, SERVER_CALL)).rejects.toMatchObject({
      code: "INVALID_OTP",
    });
    expect(deleted).toEqual([]);
    await feature.service.signIn({ email: "new@example.com", otp }, SERVER_CALL);
    expect(deleted).toEqual(["fail"]);
  });

  it("of two sign-ins with the same code exactly one signs in; the other gets INVALID_OTP and an OtpVerifyFailed", async () => {
    const { core, store, feature } = setup();
    await feature.service.send({ email: "new@example.com", purpose: "sign-in" }, SERVER_CALL);
    const otp = core.getOtp("new@example.com")!;
    const failed: number[] = [];
    core.events.on("OtpVerifyFailed", (event) => void failed.push(event.attemptCount));
    const results = await Promise.allSettled([
      feature.service.signIn({ email: "new@example.com", otp }, SERVER_CALL),
      feature.service.signIn({ email: "new@example.com", otp }, SERVER_CALL),
    ]);
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    const lost = results.find((r) => r.status === "rejected") as PromiseRejectedResult;
    expect((lost.reason as AuthError).code).toBe("INVALID_OTP");
    expect(failed).toEqual([0]);
    expect(await store.users.findByEmail("new@example.com")).not.toBeNull();
  });
});

describe("OTP sign-in: a code a hook refused", () => {
  it("is spent: beforeUserCreated refuses once, and the same code is INVALID_OTP after", async () => {
    let refusals = 0;
    const { core, store, feature } = setup({}, webCryptoRandom, {
      beforeUserCreated: () => {
        refusals += 1;
        return false;
      },
    });
    await feature.service.send({ email: "new@example.com", purpose: "sign-in" }, SERVER_CALL);
    const otp = core.getOtp("new@example.com")!;
    await expect(feature.service.signIn({ email: "new@example.com", otp }, SERVER_CALL)).rejects.toMatchObject({
      code: "SIGN_UP_REJECTED",
    });
    expect(await store.verifications.findByIdentifier(otpIdentifier("sign-in", "new@example.com"))).toBeNull();
    await expect(feature.service.signIn({ email: "new@example.com", otp }, SERVER_CALL)).rejects.toMatchObject({
      code: "INVALID_OTP",
    });
    expect(refusals).toBe(1);
    expect(await store.users.findByEmail("new@example.com")).toBeNull();
  });
});
