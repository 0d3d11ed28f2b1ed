import { MongoServerError } from "mongodb";
import { describe, expect, it } from "vitest";
import { isCredentialDuplicate } from "./accounts.ts";
import { duplicateKeyFields, isDuplicateKeyError, isDuplicateOn, userConflict } from "./errors.ts";

// Built the way the driver builds them from a server write error (E11000 carries keyPattern and keyValue).
const duplicate = (keyPattern: Record<string, number>, keyValue: Record<string, unknown>) =>
  new MongoServerError({
    code: 11000,
    errmsg: `E11000 duplicate key error collection: app.x dup key: ${JSON.stringify(keyValue)}`,
    keyPattern,
    keyValue,
  });

describe("duplicate-key mapping", () => {
  it("maps the email and username unique indexes to the port's conflicts", () => {
    expect(userConflict(duplicate({ email: 1 }, { email: "ada@example.com" }))).toBe("email");
    expect(userConflict(duplicate({ username: 1 }, { username: "ada" }))).toBe("username");
  });

  it("falls back to keyValue when keyPattern is absent", () => {
    expect(userConflict(new MongoServerError({ code: 11000, errmsg: "E11000", keyValue: { username: "ada" } }))).toBe(
      "username",
    );
  });

  it("does not turn other duplicates or other errors into a conflict", () => {
    expect(userConflict(duplicate({ _id: 1 }, { _id: "u_1" }))).toBeNull();
    expect(userConflict(new MongoServerError({ code: 11000, errmsg: "E11000 duplicate key error" }))).toBeNull();
    expect(
      userConflict(new MongoServerError({ code: 112, errmsg: "WriteConflict", keyPattern: { email: 1 } })),
    ).toBeNull();
    expect(userConflict(new Error("email"))).toBeNull();
    expect(userConflict(null)).toBeNull();
    expect(isDuplicateKeyError({ code: "11000" })).toBe(false);
  });

  it("names the fields of a compound index and recognises the credential-per-user index", () => {
    const credential = duplicate({ userId: 1, providerId: 1 }, { userId: "u_1", providerId: "credential" });
    expect(duplicateKeyFields(credential)).toEqual(["userId", "providerId"]);
    expect(isCredentialDuplicate(credential)).toBe(true);
    expect(isCredentialDuplicate(duplicate({ _id: 1 }, { _id: "a_1" }))).toBe(false);
    expect(userConflict(credential)).toBeNull();
  });

  it("isDuplicateOn matches exactly one single-field index", () => {
    expect(isDuplicateOn(duplicate({ identifier: 1 }, { identifier: "otp:x" }), "identifier")).toBe(true);
    expect(isDuplicateOn(duplicate({ identifier: 1 }, { identifier: "otp:x" }), "_id")).toBe(false);
    expect(isDuplicateOn(duplicate({ generation: 1 }, { generation: 3 }), "generation")).toBe(true);
  });
});
