import { mkdir } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { FullStore } from "@latchkey/core";
import { migrate } from "@latchkey/cli";
import { openDrizzleStore } from "@latchkey/drizzle-store";

/** The demo's default: an embedded libSQL file beside the example, created and migrated on first start. */
export const DEFAULT_DEMO_DATABASE = `file:${resolve(dirname(fileURLToPath(import.meta.url)), "../.data/latchkey-demo.db")}`;

/**
 * Opens (and migrates, idempotently) the demo's database: a libSQL `file:` URL (default), `postgres://` or
 * `mongodb://`. The example reads `LATCHKEY_DATABASE_URL`; the library itself reads no environment.
 */
export async function openDemoDatabase(
  url: string = DEFAULT_DEMO_DATABASE,
  log: (line: string) => void = () => undefined,
): Promise<FullStore> {
  if (url.startsWith("file:")) await mkdir(dirname(url.slice("file:".length)), { recursive: true });
  await migrate(url, { log });
  if (/^mongodb(\+srv)?:\/\//.test(url)) {
    const { mongoStore } = await import("@latchkey/mongo-store");
    return mongoStore({ url });
  }
  return openDrizzleStore(url);
}
