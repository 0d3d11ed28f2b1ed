import { hmac } from "@noble/hashes/hmac.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { base64url, hmacSha256With, utf8 } from "../crypto/crypto.ts";
import type { CounterBinding, CounterStore } from "../ports/store.ts";

const HEX = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");

/**
 * The binding `createAuth` passes to a counter store's `bind`: a namespace that differs between apps (derived
 * from the secret and the origin of `baseUrl`) and a keyed hash for the identifiers inside counter keys (emails,
 * client addresses), so a shared Redis never holds them in clear. Changing the secret starts every counter over.
 *
 * @example
 * import { counterBinding } from "@latchkey/core";
 * const binding = counterBinding(process.env.LATCHKEY_SECRET!, "https://app.example");
 * binding.keyOf("email:ada@example.com"); // 22 base64url characters
 */
export function counterBinding(secret: string, baseOrigin: string): CounterBinding {
  const key = hmac(sha256, utf8(secret), utf8("latchkey/counter-keys v1"));
  const namespace = HEX(hmac(sha256, key, utf8(`namespace:${baseOrigin}`)).subarray(0, 6));
  // Keyed once: every counter hit and peek derives its key here. The last value is remembered: a lockout check
  // reads two counters of one identifier (`lock:` and `lockfail:` of `email:ada@...`) and derives its key once.
  const mac = hmacSha256With(key);
  let lastValue: string | null = null;
  let lastKey = "";
  return {
    namespace,
    keyOf: (value) => {
      if (value !== lastValue) {
        lastKey = base64url(mac(value).subarray(0, 16));
        lastValue = value;
      }
      return lastKey;
    },
  };
}

/**
 * The key a counter is stored under: its kind (the part before the first `:`, e.g. `lock`, `rl`, `mail-budget`,
 * `sign-up-notice`) in clear, the rest (an email, a username, a client address, a path) through the binding's
 * keyed hash. One derivation for every store, so no counters table, Redis or memory map holds an address.
 *
 * @example
 * storedCounterKey(binding, "sign-up-notice:ada@example.com"); // "sign-up-notice:" + 22 base64url characters
 */
export function storedCounterKey(binding: CounterBinding, key: string): string {
  const colon = key.indexOf(":");
  return colon < 0 ? binding.keyOf(key) : `${key.slice(0, colon)}:${binding.keyOf(key.slice(colon + 1))}`;
}

/**
 * `counters` as core uses them: every key goes through `storedCounterKey` before it reaches the store. The other
 * members (`deleteExpired`, `ping`, `bind`, `close`) pass through unchanged.
 *
 * @example
 * const counters = keyedCounters(store.counters, counterBinding(secret, baseOrigin));
 * await counters.hit("mail-budget:ada@example.com", 900_000, Date.now()); // stored as "mail-budget:<hmac>"
 */
export function keyedCounters(counters: CounterStore, binding: CounterBinding): CounterStore {
  const stored = (key: string) => storedCounterKey(binding, key);
  const keyed: CounterStore = {
    hit: (key, windowMs, now) => counters.hit(stored(key), windowMs, now),
    peek: (key, now) => counters.peek(stored(key), now),
    delete: (key) => counters.delete(stored(key)),
    rename: (from, to) => counters.rename(stored(from), stored(to)),
    deleteExpired: (now, limit) => counters.deleteExpired(now, limit),
  };
  // Optional members stay absent when the store has none (/health calls `ping` only where it exists).
  if (counters.peekMany) keyed.peekMany = (keys, now) => counters.peekMany!(keys.map(stored), now);
  if (counters.hitGated)
    keyed.hitGated = (gate, next, now) =>
      counters.hitGated!({ ...gate, key: stored(gate.key) }, { ...next, key: stored(next.key) }, now);
  if (counters.ping) keyed.ping = () => counters.ping!();
  if (counters.bind) keyed.bind = (next) => counters.bind!(next);
  if (counters.close) keyed.close = () => counters.close!();
  return keyed;
}
