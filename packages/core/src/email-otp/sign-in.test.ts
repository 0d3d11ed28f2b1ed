import { signedIn } from "../session/sign-in-gate.ts";
import { describe, expect, it } from "vitest";
import type { AuthError } from "../errors/errors.ts";
import { SERVER_CALL } from "../kernel/request-meta.ts";
import { webCryptoRandom } from "../ports/clock.ts";
import { setup } from "../../test/email-otp-fixture.ts";
import { otpIdentifier } from "./otp-codes.ts";

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
