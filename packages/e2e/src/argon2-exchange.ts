import { argon2idEngine, argon2idHasher, webCryptoRandom } from "@latchkey/core";

/** The password every runtime hashes for the exchange (non-ASCII: UTF-8 must agree everywhere). */
export const EXCHANGE_PASSWORD = "pässwörd 🙂 shared across runtimes";

/** A hash written by one runtime, carried to the others through a file or stdout. */
export interface HashEntry {
  runtime: string;
  engine: "native" | "portable";
  phc: string;
}

export interface ExchangeResult {
  runtime: string;
  engine: "native" | "portable";
  /** Every incoming hash and whether this runtime verified it (and rejected a wrong password). */
  verified: Array<{ from: string; engine: string; ok: boolean }>;
  /** This runtime's own hash, for the next runtime. */
  own: HashEntry;
}

/**
 * Verifies hashes written elsewhere and writes one here, with the default hasher (production parameters, the
 * runtime's default engine): proves a database of password hashes moves between runtimes.
 *
 * @example
 * import { exchangeHashes } from "@latchkey/e2e";
 * const result = await exchangeHashes("deno", JSON.parse(await Deno.readTextFile(path)));
 */
export async function exchangeHashes(runtime: string, incoming: readonly HashEntry[]): Promise<ExchangeResult> {
  const hasher = argon2idHasher({ random: webCryptoRandom });
  const verified: ExchangeResult["verified"] = [];
  for (const entry of incoming) {
    const right = await hasher.verify(entry.phc, EXCHANGE_PASSWORD);
    const wrong = await hasher.verify(entry.phc, `${EXCHANGE_PASSWORD}!`);
    verified.push({ from: entry.runtime, engine: entry.engine, ok: right && !wrong });
  }
  const phc = await hasher.hash(EXCHANGE_PASSWORD);
  return { runtime, engine: argon2idEngine, verified, own: { runtime, engine: argon2idEngine, phc } };
}
