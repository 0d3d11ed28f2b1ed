import { fixtures } from "@latchkey/store-conformance";
import { describe, expect, it } from "vitest";
import { memoryDatabase } from "./database.ts";
import { memoryStoreOver } from "./store.ts";
import { expectIndexesMatchRows, gate, snapshot } from "../test/indexes-fixture.ts";

// Issue 27 (../test/indexes-fixture.ts): a transaction that rolled back leaves the indexes saying what the rows say.

const { user, session, account, verification, apiKey, at } = fixtures;

describe("memory store indexes: a rolled-back transaction", () => {
  async function withRows() {
    const db = memoryDatabase();
    const store = memoryStoreOver(db);
    for (const id of ["ada", "bob"]) {
      await store.users.create(user({ id }), [account(id, { id: `${id}-pw` })]);
      await store.sessions.create(session(id, { id: `${id}-s`, tokenHash: `th-${id}` }));
      await store.apiKeys!.create(apiKey(id, { id: `${id}-k`, keyHash: `kh-${id}` }));
      await store.verifications.issue(
        verification({ id: `${id}-v`, identifier: `otp:${id}`, valueHash: `vh-${id}`, userId: id }),
      );
    }
    return { db, store };
  }

  it("leaves every index exactly as before when the body fails half-way", async () => {
    const { db, store } = await withRows();
    const before = snapshot(db);
    const failure = new Error("half-way");
    await expect(
      store.transaction(async (tx) => {
        const cy = user({ id: "cy" });
        await tx.users.create(cy, [account("cy", { id: "cy-pw" })]);
        await tx.sessions.create(session("cy", { id: "cy-s" }));
        await tx.sessions.create(session("ada", { id: "ada-s2" }));
        await tx.sessions.deleteByUser("bob");
        await tx.accounts.upsertPassword("ada", account("ada", { passwordHash: "$changed" }));
        await tx.accounts.deleteAllExcept("bob", "EMAIL_OTP");
        await tx.verifications.issue(
          verification({ id: "ada-v2", identifier: "otp:ada", valueHash: "vh-ada-2", userId: "ada" }),
        );
        await tx.verifications.consume("bob-v");
        await tx.apiKeys!.reroll("ada-k", "ada", {
          keyHash: "kh-ada-2",
          start: "lk_z",
          graceUntil: at(1000),
          at: at(0),
        });
        await tx.apiKeys!.create(apiKey("cy", { id: "cy-k" }));
        await tx.users.delete("bob");
        expectIndexesMatchRows(db); // in step inside the transaction too
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(snapshot(db)).toEqual(before);
    expectIndexesMatchRows(db);
  });

  it("keeps the indexes in step when writes outside the transaction land on the same user meanwhile", async () => {
    const { db, store } = await withRows();
    const outside = gate();
    const txWrote = gate();
    const rolledBack = store.transaction(async (tx) => {
      await tx.sessions.create(session("ada", { id: "tx-s" }));
      await tx.verifications.issue(
        verification({ id: "tx-v", identifier: "otp:bob", valueHash: "vh-tx", userId: "bob" }),
      );
      txWrote.open();
      await outside.passed; // another request writes to ada and bob now
      throw new Error("rolled back");
    });
    await txWrote.passed; // the transaction's writes come first, the other request's land while it is open
    await store.sessions.create(session("ada", { id: "out-s" }));
    await store.accounts.create(account("bob", { id: "out-otp", providerId: "EMAIL_OTP", passwordHash: null }));
    await store.verifications.issue(
      verification({ id: "out-v", identifier: "otp:ada", valueHash: "vh-out", userId: "ada" }),
    );
    outside.open();
    await expect(rolledBack).rejects.toThrow("rolled back");

    // The transaction's rows are gone, the other request's stand, and every index says so.
    expectIndexesMatchRows(db);
    expect(db.sessions.indexEntries("user").get("ada")).toEqual(new Set(["ada-s", "out-s"]));
    expect(db.verifications.indexEntries("identifier").get("otp:ada")).toEqual(new Set(["out-v"]));
    expect(db.verifications.indexEntries("identifier").get("otp:bob")).toEqual(new Set(["bob-v"]));
    expect(await store.verifications.findByValueHash("vh-tx")).toBeNull();
    expect((await store.sessions.listByUser("ada")).map((s) => s.id).sort()).toEqual(["ada-s", "out-s"]);
  });
});

describe("a rolled-back transaction and a newer code for the same identifier", () => {
  // Ada with one live code, `old-v` for `otp:ada`.
  async function withAdaCode() {
    const db = memoryDatabase();
    const store = memoryStoreOver(db);
    await store.users.create(user({ id: "ada", email: "ada@example.com" }), []);
    await store.verifications.issue(
      verification({ id: "old-v", identifier: "otp:ada", valueHash: "vh-old", userId: "ada" }),
    );
    return { db, store };
  }

  it("bug: the code the transaction replaced does not come back beside the code another request issued meanwhile", async () => {
    const { db, store } = await withAdaCode();
    const outside = gate();
    const txRotated = gate();
    const rolledBack = store.transaction(async (tx) => {
      // The transaction rotates the code (old-v out, tx-v in), then fails after another request sent a new one.
      await tx.verifications.issue(
        verification({ id: "tx-v", identifier: "otp:ada", valueHash: "vh-tx", userId: "ada" }),
      );
      txRotated.open();
      await outside.passed;
      throw new Error("rolled back");
    });
    await txRotated.passed;
    expect([...db.verifications.keys()]).toEqual(["tx-v"]);
    await store.verifications.issue(
      verification({ id: "out-v", identifier: "otp:ada", valueHash: "vh-out", userId: "ada" }),
    );
    outside.open();
    await expect(rolledBack).rejects.toThrow("rolled back");

    // One code per identifier, as in the SQL stores: the newest stands; neither the replaced nor the rolled-back one
    // can be found by its value.
    expect([...db.verifications.keys()]).toEqual(["out-v"]);
    expect((await store.verifications.findByIdentifier("otp:ada"))?.id).toBe("out-v");
    expect(await store.verifications.findByValueHash("vh-old")).toBeNull();
    expect(await store.verifications.findByValueHash("vh-tx")).toBeNull();
    expectIndexesMatchRows(db);
  });

  it("a rolled-back transaction still puts back the code it removed when nobody issued another", async () => {
    const { db, store } = await withAdaCode();
    await expect(
      store.transaction(async (tx) => {
        await tx.verifications.issue(
          verification({ id: "tx-v", identifier: "otp:ada", valueHash: "vh-tx", userId: "ada" }),
        );
        throw new Error("rolled back");
      }),
    ).rejects.toThrow("rolled back");
    expect([...db.verifications.keys()]).toEqual(["old-v"]);
    expect((await store.verifications.findByValueHash("vh-old"))?.id).toBe("old-v");
    expectIndexesMatchRows(db);
  });
});
