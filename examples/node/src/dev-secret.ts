import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { randomString, webCryptoRandom } from "@latchkey/core";

const SECRET_FILE = resolve(dirname(fileURLToPath(import.meta.url)), "../.data/dev-secret");

/**
 * A development secret kept beside the demo database, so JWT keys stay readable across restarts.
 * Set LATCHKEY_SECRET (from `latchkey secret`) for anything but local runs.
 */
export function generateDevSecret(): string {
  try {
    return readFileSync(SECRET_FILE, "utf8").trim();
  } catch {
    console.warn(`LATCHKEY_SECRET is not set: writing a development secret to ${SECRET_FILE}`);
    const secret = randomString(webCryptoRandom, 64);
    mkdirSync(dirname(SECRET_FILE), { recursive: true });
    writeFileSync(SECRET_FILE, `${secret}\n`, { mode: 0o600 });
    return secret;
  }
}
