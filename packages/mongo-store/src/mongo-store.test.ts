import { MongoClient } from "mongodb";
import type { Store } from "@latchkey/core";
import { runStoreConformance } from "@latchkey/store-conformance";
import { ensureIndexes, INDEX_SPECS } from "./indexes.ts";
import { mongoStore } from "./store.ts";

const url = process.env.MONGODB_URL;
const skip = url ? false : "MONGODB_URL is not set";

// A throwaway database per run. Only the constraint indexes: the fixtures are dated 2026-01-01 and the TTL monitor
// uses the server's real clock, so TTL indexes would delete fixture rows in the middle of a test.
async function freshStore(transactions?: boolean): Promise<Store> {
  const client = new MongoClient(url!);
  const db = client.db(`latchkey_conformance_${crypto.randomUUID().slice(0, 8)}`);
  await ensureIndexes(
    db,
    INDEX_SPECS.filter((spec) => spec.expireAfterSeconds === undefined),
  );
  const store = mongoStore({ client, dbName: db.databaseName, transactions });
  return {
    ...store,
    close: async () => {
      await db.dropDatabase();
      await client.close();
    },
  };
}

runStoreConformance({ name: "mongodb", createStore: () => freshStore(), skip });
// On a replica set the run above uses transactions; this one pins the compensating path of a standalone server.
runStoreConformance({ name: "mongodb (no transactions)", createStore: () => freshStore(false), skip });
