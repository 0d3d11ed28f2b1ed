import { describe, expect, it } from "vitest";
import { importMongoStore, loadMongoMigrator, migrateWith } from "./migrate.ts";

const notInstalled = () =>
  Promise.reject(
    Object.assign(new Error("Cannot find package '@latchkey/mongo-store' imported from cli"), {
      code: "ERR_MODULE_NOT_FOUND",
    }),
  );

describe("latchkey migrate", () => {
  it("hands mongodb:// URLs to migrateMongo of @latchkey/mongo-store", async () => {
    const calls: string[] = [];
    const fake = {
      migrateMongo: async (url: string, { log }: { log: (line: string) => void }) => (
        calls.push(url), log("created indexes"), ["users.email_unique"]
      ),
    };
    const lines: string[] = [];
    const applied = await migrateWith(
      "mongodb://127.0.0.1:27017/app",
      { log: (line) => lines.push(line) },
      async () => fake,
    );
    expect(applied).toEqual(["users.email_unique"]);
    expect(calls).toEqual(["mongodb://127.0.0.1:27017/app"]);
    expect(lines).toEqual(["created indexes"]);
  });

  it("finds migrateMongo in the installed @latchkey/mongo-store", async () => {
    expect(await loadMongoMigrator(importMongoStore)).toBeTypeOf("function");
  });

  it("says which package to install when @latchkey/mongo-store is absent, and keeps other load errors", async () => {
    await expect(migrateWith("mongodb://localhost/app", {}, notInstalled)).rejects.toThrow(
      /@latchkey\/mongo-store, which is not installed/,
    );
    await expect(migrateWith("mongodb://localhost/app", {}, async () => ({}))).rejects.toThrow(
      /does not export migrateMongo/,
    );
    const broken = () => Promise.reject(new Error("mongodb driver exploded"));
    await expect(migrateWith("mongodb://localhost/app", {}, broken)).rejects.toThrow("mongodb driver exploded");
  });
});
