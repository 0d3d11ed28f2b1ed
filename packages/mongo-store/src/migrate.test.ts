import { MongoClient } from "mongodb";
import { describe, expect, it } from "vitest";
import { INDEX_SPECS, TTL_GRACE_SECONDS } from "./indexes.ts";
import { migrateMongo } from "./migrate.ts";

const url = process.env.MONGODB_URL;

describe.skipIf(!url)("migrateMongo against MONGODB_URL", () => {
  it("creates every index once; a second run applies nothing", async () => {
    const dbName = `latchkey_migrate_${crypto.randomUUID().slice(0, 8)}`;
    const client = new MongoClient(url!);
    const logged: string[] = [];
    try {
      const first = await migrateMongo(url!, { dbName, log: (line) => logged.push(line) });
      expect(first).toHaveLength(INDEX_SPECS.length);
      expect(logged).toHaveLength(INDEX_SPECS.length);

      const second = await migrateMongo(url!, { dbName, log: (line) => logged.push(line) });
      expect(second).toEqual([]);
      expect(logged.at(-1)).toMatch(/nothing to do/);

      const db = client.db(dbName);
      const users = await db.collection("users").listIndexes().toArray();
      expect(users.find((i) => i.name === "email_unique")).toMatchObject({ key: { email: 1 }, unique: true });
      expect(users.find((i) => i.name === "username_unique")).toMatchObject({
        unique: true,
        partialFilterExpression: { username: { $type: "string" } },
      });
      const sessions = await db.collection("sessions").listIndexes().toArray();
      expect(sessions.find((i) => i.name === "expiresAt_ttl")?.expireAfterSeconds).toBe(TTL_GRACE_SECONDS);
    } finally {
      await client.db(dbName).dropDatabase();
      await client.close();
    }
  });
});
