import { fixtures } from "@latchkey/store-conformance";
import { describe, expect, it } from "vitest";
import { memoryDatabase } from "./database.ts";
import { memoryStoreOver } from "./store.ts";
import { expectIndexesMatchRows } from "../test/indexes-fixture.ts";

// Issue 27 (../test/indexes-fixture.ts): after every kind of write, each index says exactly what the rows say.

const { user, session, account, verification, apiKey, at } = fixtures;

describe("memory store indexes: always what the rows say", () => {
  it("after every kind of write, each index matches the rows", async () => {
    const db = memoryDatabase();
    const store = memoryStoreOver(db);
    const keys = store.apiKeys!;
    const steps: [string, () => Promise<unknown>][] = [];
    const step = (name: string, write: () => Promise<unknown>) => steps.push([name, write]);

    const ada = user({ id: "ada", username: "ada" });
    const bob = user({ id: "bob" });
    step("users.create with accounts", () =>
      store.users.create(ada, [
        account("ada", { id: "ada-pw" }),
        account("ada", { id: "ada-otp", providerId: "EMAIL_OTP", passwordHash: null }),
      ]),
    );
    step("users.create, no accounts", () => store.users.create(bob, []));
    step("users.update email and username", () =>
      store.users.update("ada", { email: "ada2@example.com", username: "ada2" }),
    );
    step("accounts.create", () =>
      store.accounts.create(account("bob", { id: "bob-otp", providerId: "EMAIL_OTP", passwordHash: null })),
    );
    step("accounts.setPasswordIfAbsent inserts", () =>
      store.accounts.setPasswordIfAbsent("bob", account("bob", { id: "bob-pw" })),
    );
    step("accounts.upsertPassword updates", () =>
      store.accounts.upsertPassword("bob", account("bob", { passwordHash: "$new" })),
    );
    step("accounts.deleteAllExcept", () => store.accounts.deleteAllExcept("ada", "credential"));
    for (const [id, owner] of [
      ["s1", "ada"],
      ["s2", "ada"],
      ["s3", "bob"],
      ["s4", "bob"],
    ] as const)
      step(`sessions.create ${id}`, () =>
        store.sessions.create(
          session(owner, { id, tokenHash: `th-${id}`, expiresAt: at(id === "s4" ? 1000 : 86_400_000) }),
        ),
      );
    step("sessions.touch", () => store.sessions.touch("s1", at(172_800_000), at(1000)));
    step("sessions.delete", () => store.sessions.delete("s2"));
    step("sessions.deleteByUser except one", () => store.sessions.deleteByUser("ada", "s1"));
    step("sessions.deleteExpired", () => store.sessions.deleteExpired(at(2000)));

    step("verifications.issue", () =>
      store.verifications.issue(verification({ id: "v1", identifier: "otp:ada", valueHash: "h1", userId: "ada" })),
    );
    step("verifications.issue rotates", () =>
      store.verifications.issue(verification({ id: "v2", identifier: "otp:ada", valueHash: "h2", userId: "ada" })),
    );
    step("verifications.issue, no user", () =>
      store.verifications.issue(verification({ id: "v3", identifier: "link:x", valueHash: "h3" })),
    );
    step("verifications.issue, same value hash", () =>
      store.verifications.issue(verification({ id: "v4", identifier: "link:y", valueHash: "h3", userId: "bob" })),
    );
    step("verifications.recordFailedAttempt", () => store.verifications.recordFailedAttempt("v2", 3));
    step("verifications.recordFailedAttempt destroys", () => store.verifications.recordFailedAttempt("v4", 1));
    step("verifications.consume", () => store.verifications.consume("v3"));
    step("verifications.issue again", () =>
      store.verifications.issue(
        verification({ id: "v5", identifier: "otp:bob", valueHash: "h5", userId: "bob", expiresAt: at(1000) }),
      ),
    );
    step("verifications.deleteByIdentifier", () => store.verifications.deleteByIdentifier("otp:ada"));
    step("verifications.deleteExpired", () => store.verifications.deleteExpired(at(2000)));
    step("verifications.issue for the cascade", () =>
      store.verifications.issue(verification({ id: "v6", identifier: "otp:bob", valueHash: "h6", userId: "bob" })),
    );

    step("apiKeys.create", () => keys.create(apiKey("ada", { id: "k1", keyHash: "kh1" })));
    step("apiKeys.create, limited", () =>
      keys.create(apiKey("ada", { id: "k2", keyHash: "kh2", expiresAt: at(1000) }), { maxPerUser: 2 }),
    );
    step("apiKeys.create refused at the limit", () =>
      keys.create(apiKey("ada", { id: "k3", keyHash: "kh3" }), { maxPerUser: 2 }),
    );
    step("apiKeys.create for bob", () =>
      keys.create(apiKey("bob", { id: "k4", keyHash: "kh4", remaining: 3, expiresAt: at(1000) })),
    );
    step("apiKeys.update", () => keys.update("k1", "ada", { name: "renamed" }));
    step("apiKeys.reroll with grace", () =>
      keys.reroll("k1", "ada", { keyHash: "kh1b", start: "lk_x", graceUntil: at(1000), at: at(0) }),
    );
    step("apiKeys.reroll without grace", () =>
      keys.reroll("k4", null, { keyHash: "kh4b", start: "lk_y", graceUntil: null, at: at(0) }),
    );
    step("apiKeys.touchLastUsed", () => keys.touchLastUsed("k1", at(10), 1));
    step("apiKeys.consumeUse", () => keys.consumeUse("k4", at(10)));
    step("apiKeys.deleteExpiredRerolls", () => keys.deleteExpiredRerolls(at(2000)));
    step("apiKeys.deleteExpired of one user", () => keys.deleteExpired(at(2000), "ada"));
    step("apiKeys.create again", () => keys.create(apiKey("ada", { id: "k5", keyHash: "kh5" })));
    step("apiKeys.delete", () => keys.delete("k5", "ada"));
    step("apiKeys.deleteExpired of every user", () => keys.deleteExpired(at(2000), null));
    step("apiKeys.create for the cascade", () => keys.create(apiKey("bob", { id: "k6", keyHash: "kh6" })));

    step("users.delete takes the user's rows", () => store.users.delete("bob"));

    for (const [name, write] of steps) {
      await write();
      try {
        expectIndexesMatchRows(db);
      } catch (error) {
        throw new Error(`indexes out of step after ${name}`, { cause: error });
      }
    }
    // The script did what it says: what is left is ada's credential account, session s1 and key k1.
    expect([...db.accounts.keys()]).toEqual(["ada-pw"]);
    expect([...db.sessions.keys()]).toEqual(["s1"]);
    expect([...db.apiKeys.keys()]).toEqual(["k1"]);
    expect(db.verifications.size).toBe(0);
    expect(db.accounts.indexEntries("user")).toEqual(new Map([["ada", new Set(["ada-pw"])]]));
  });
});
