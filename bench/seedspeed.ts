import { migrateDatabase } from "@latchkey/drizzle-store/sqlite";
import { migrateDatabase as migratePg } from "@latchkey/drizzle-store/postgres";
import { seedLatchkeyScale } from "./src/scale/seed.ts";
import { sizesFor } from "./src/scale/rows.ts";
import { startBenchPostgres } from "./src/harness/postgres.ts";
const n = Number(process.argv[2] ?? 20000);
const file = `/tmp/i16-seedspeed-${Date.now()}.db`;
await migrateDatabase(`file:${file}`);
console.log("sqlite", (await seedLatchkeyScale({ dialect: "sqlite", file }, sizesFor(n), Date.now(), console.log)).ms);
const pg = await startBenchPostgres(null);
try {
  const url = await pg.createDatabase("speed");
  await migratePg(url);
  console.log("pg", (await seedLatchkeyScale({ dialect: "postgres", url }, sizesFor(n), Date.now(), console.log)).ms);
} finally {
  await pg.stop();
}
