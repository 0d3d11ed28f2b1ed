import { describe, expect, it } from "vitest";
import { describeIndex, INDEX_SPECS, planIndexes, TTL_GRACE_SECONDS, type ExistingIndex } from "./indexes.ts";

const find = (collection: string, name: string) =>
  INDEX_SPECS.find((s) => s.collection === collection && s.name === name);
const asExisting = (specs = INDEX_SPECS): ExistingIndex[] =>
  specs.map((s) => ({ name: s.name, key: s.key, unique: s.unique, expireAfterSeconds: s.expireAfterSeconds }));

describe("index specs", () => {
  it("have unique names within each collection", () => {
    const names = INDEX_SPECS.map((s) => `${s.collection}.${s.name}`);
    expect(new Set(names).size).toBe(names.length);
  });

  it("make every uniqueness the ports promise a unique index", () => {
    expect(find("users", "email_unique")).toMatchObject({ key: { email: 1 }, unique: true });
    expect(find("sessions", "tokenHash_unique")).toMatchObject({ key: { tokenHash: 1 }, unique: true });
    expect(find("api_keys", "keyHash_unique")).toMatchObject({ key: { keyHash: 1 }, unique: true });
    expect(find("jwks", "generation_unique")).toMatchObject({ key: { generation: 1 }, unique: true });
    expect(find("verifications", "identifier_unique")).toMatchObject({ key: { identifier: 1 }, unique: true });
    expect(find("accounts", "credential_per_user_unique")).toMatchObject({
      unique: true,
      partialFilterExpression: { providerId: "credential" },
    });
    expect(find("accounts", "provider_account_unique")).toMatchObject({
      key: { providerId: 1, accountId: 1 },
      unique: true,
      partialFilterExpression: { accountId: { $type: "string" } },
    });
  });

  it("index usernames only when set, so many users may have none", () => {
    expect(find("users", "username_unique")).toMatchObject({
      unique: true,
      partialFilterExpression: { username: { $type: "string" } },
    });
  });

  it("keep OTP value hashes non-unique (short codes collide across identifiers)", () => {
    expect(find("verifications", "valueHash")?.unique).toBeUndefined();
  });

  it("expire only sessions, verifications and counters, a grace period after expiry", () => {
    const ttl = INDEX_SPECS.filter((s) => s.expireAfterSeconds !== undefined).map(
      (s) => `${s.collection}.${Object.keys(s.key).join()}`,
    );
    expect(ttl.sort()).toEqual(["counters.resetAt", "sessions.expiresAt", "verifications.expiresAt"]);
    expect(TTL_GRACE_SECONDS).toBeGreaterThanOrEqual(3600);
    for (const s of INDEX_SPECS)
      if (s.expireAfterSeconds !== undefined) expect(s.expireAfterSeconds).toBe(TTL_GRACE_SECONDS);
  });
});

describe("planIndexes", () => {
  const users = INDEX_SPECS.filter((s) => s.collection === "users");
  const idIndex: ExistingIndex = { name: "_id_", key: { _id: 1 } };

  it("creates everything on an empty collection", () => {
    expect(planIndexes([idIndex], users)).toEqual({ create: users, retune: [] });
  });

  it("plans nothing when every index is present (migrate is idempotent)", () => {
    expect(planIndexes([idIndex, ...asExisting()], INDEX_SPECS)).toEqual({ create: [], retune: [] });
  });

  it("accepts an equivalent index created by hand under another name", () => {
    const byHand: ExistingIndex = { name: "email_1", key: { email: 1 }, unique: true };
    expect(planIndexes([idIndex, byHand], users).create.map((s) => s.name)).toEqual(["username_unique"]);
  });

  it("does not take a non-unique index for a unique one", () => {
    const plain: ExistingIndex = { name: "email_1", key: { email: 1 } };
    expect(planIndexes([plain], users).create.map((s) => s.name)).toEqual(["email_unique", "username_unique"]);
  });

  it("retunes a TTL whose grace changed", () => {
    const counters = INDEX_SPECS.filter((s) => s.collection === "counters");
    const old: ExistingIndex = { name: "resetAt_ttl", key: { resetAt: 1 }, expireAfterSeconds: 60 };
    expect(planIndexes([old], counters)).toEqual({ create: [], retune: [{ spec: counters[0], from: 60 }] });
  });

  it("refuses a same-named index with another key", () => {
    expect(() => planIndexes([{ name: "email_unique", key: { email: -1 }, unique: true }], users)).toThrow(
      /users\.email_unique/,
    );
  });

  it("describes an index in one line", () => {
    expect(describeIndex(find("users", "username_unique")!)).toBe(
      'users.username_unique {"username":1} (unique, partial {"username":{"$type":"string"}})',
    );
    expect(describeIndex(find("sessions", "expiresAt_ttl")!)).toBe(
      `sessions.expiresAt_ttl {"expiresAt":1} (ttl +${TTL_GRACE_SECONDS}s)`,
    );
  });
});
