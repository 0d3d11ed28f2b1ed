import { MongoClient } from "mongodb";
import { describe, expect, it } from "vitest";
import { databaseNameFromUrl, resolveDatabaseName, supportsTransactions, transactionsFor } from "./connection.ts";
import { mongoStore } from "./store.ts";

describe("database name", () => {
  it.each([
    ["mongodb://localhost:27017", null],
    ["mongodb://localhost:27017/", null],
    ["mongodb://localhost:27017/?replicaSet=rs0", null],
    ["mongodb://localhost:27017/app", "app"],
    ["mongodb://u:p%40ss@h1:1,h2:2/app?replicaSet=rs0", "app"],
    ["mongodb+srv://user:pw@cluster0.example.net/auth_prod?retryWrites=true", "auth_prod"],
    ["mongodb://h/my%20db", "my db"],
  ])("%s -> %s", (url, name) => {
    expect(databaseNameFromUrl(url)).toBe(name);
  });

  it("prefers dbName, then the URL's database, then latchkey", () => {
    expect(resolveDatabaseName("mongodb://h/app", "other")).toBe("other");
    expect(resolveDatabaseName("mongodb://h/app", undefined)).toBe("app");
    expect(resolveDatabaseName("mongodb://h", undefined)).toBe("latchkey");
    expect(resolveDatabaseName(null, undefined)).toBe("latchkey");
  });
});

describe("transactions", () => {
  it("are available on a replica set member or a mongos, not on a standalone", () => {
    expect(supportsTransactions({ isWritablePrimary: true, setName: "rs0" })).toBe(true);
    expect(supportsTransactions({ isWritablePrimary: true, msg: "isdbgrid" })).toBe(true);
    expect(supportsTransactions({ isWritablePrimary: true, maxWireVersion: 25 })).toBe(false);
  });

  it("a forced setting answers without asking the server", async () => {
    // Port 9 (discard) on loopback: nothing answers there, so any probe would fail the test.
    const client = new MongoClient("mongodb://127.0.0.1:9/x", { serverSelectionTimeoutMS: 200 });
    await expect(transactionsFor(client, false).available()).resolves.toBe(false);
    await expect(transactionsFor(client, true).available()).resolves.toBe(true);
    await expect(transactionsFor(client, undefined).available()).rejects.toThrow();
    await client.close();
  });
});

describe("mongoStore", () => {
  it("is a Store of kind mongodb that connects lazily and closes the client it created", async () => {
    const store = mongoStore({ url: "mongodb://127.0.0.1:9/x" });
    expect(store.kind).toBe("mongodb");
    await expect(store.close()).resolves.toBeUndefined();
  });
});
