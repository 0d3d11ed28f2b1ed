import { createHmac } from "node:crypto";

/**
 * Single-use credentials for the scenarios whose measured request spends one (a pending two-factor sign-in, a
 * magic link, a social sign-in's flow): each server seeds a pool of them in bulk before each window (`POST
 * /__bench/pool`, not timed; the social flows are made by the load generator, harness/social.ts), and the load
 * generator hands out each one once.
 */
/** The kinds a server seeds in its own process (`POST /__bench/pool`). */
export type ServerPoolKind = "two-factor" | "magic-link";
export type PoolKind = ServerPoolKind | "social-callback";

/**
 * One credential: the cookie or token the request carries, for two-factor the user's TOTP key (hex), for a social
 * callback the callback's path with the provider's code and state (the credential is then the state cookie).
 */
export interface PoolItem {
  credential: string;
  key?: string;
  path?: string;
}

/** A seeded pool and how far the load generator got through it. */
export interface Pool {
  items: PoolItem[];
  /** How many items were asked for: past `items.length`, the window ran out and does not count. */
  taken: number;
}

export function newPool(items: PoolItem[]): Pool {
  return { items, taken: 0 };
}

/** The next unused item; past the end the last one again (its request fails), and `exhausted` says so. */
export function take(pool: Pool): PoolItem {
  const item = pool.items[Math.min(pool.taken, pool.items.length - 1)];
  pool.taken += 1;
  if (!item) throw new Error("empty pool");
  return item;
}

export const exhausted = (pool: Pool): boolean => pool.taken > pool.items.length;

/**
 * How many items a window of `loadMs` (warm-up and window) needs at most, from an earlier window at the same load:
 * the server runs on one pinned core, so it completes at most `loadMs / cpuMsPerOp` requests however much of the
 * core it gets (a busy machine's windows differ by far more than their CPU per request does), with a fifth more, and
 * never fewer than that window took with half as much again; one per connection more for the requests in flight.
 */
export function poolNeed(taken: number, cpuMsPerOp: number, loadMs: number, connections: number): number {
  const ceiling = Number.isFinite(cpuMsPerOp) && cpuMsPerOp > 0 ? (loadMs / cpuMsPerOp) * 1.2 : 0;
  return Math.ceil(Math.max(ceiling, taken * 1.5)) + connections;
}

/** The next pool: the most any earlier window of the same scenario and server needed, or the first guess. */
export function nextPoolSize(mostNeeded: number | null, firstGuess: number, floor = 500): number {
  return Math.max(floor, mostNeeded ?? firstGuess);
}

/** RFC 4226 HOTP / RFC 6238 TOTP with node:crypto (SHA-1, 6 digits, 30 s): the authenticator app of the bench. */
export function totpCode(keyHex: string, atMs: number, period = 30, digits = 6): string {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(atMs / 1000 / period)));
  const mac = createHmac("sha1", Buffer.from(keyHex, "hex")).update(counter).digest();
  const offset = (mac[mac.length - 1] as number) & 0x0f;
  const value = mac.readUInt32BE(offset) & 0x7fffffff;
  return String(value % 10 ** digits).padStart(digits, "0");
}

const BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

/** RFC 4648 base32 (no padding needed) to hex: the `secret` an authenticator app is given. */
export function base32ToHex(text: string): string {
  let bits = 0;
  let value = 0;
  const bytes: number[] = [];
  for (const char of text.replace(/=+$/, "").toUpperCase()) {
    const index = BASE32.indexOf(char);
    if (index < 0) throw new Error(`not base32: ${char}`);
    value = (value << 5) | index;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      bytes.push((value >>> bits) & 0xff);
    }
  }
  return Buffer.from(bytes).toString("hex");
}
