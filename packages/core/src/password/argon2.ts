import { argon2idAsync } from "@noble/hashes/argon2.js";
import { constantTimeEqual, utf8 } from "../crypto/crypto.ts";
import type { Random } from "../ports/clock.ts";
import { nativeArgon2idRaw, nativeArgon2Threads } from "#native-argon2";

/** Hashes and verifies passwords. The stored form is self-describing (a PHC string). */
export interface PasswordHasher {
  hash(password: string): Promise<string>;
  verify(hash: string, password: string): Promise<boolean>;
}

export interface Argon2Params {
  /** Memory in KiB. */
  memoryCost: number;
  timeCost: number;
  parallelism: number;
}

/** OWASP's argon2id baseline: m=19 MiB, t=2, p=1. */
export const DEFAULT_ARGON2_PARAMS: Argon2Params = { memoryCost: 19456, timeCost: 2, parallelism: 1 };

/** Computes raw argon2id output; the native engine (Node, Bun) when it loads, else pure JS. */
export type Argon2idRaw = (
  password: Uint8Array,
  salt: Uint8Array,
  params: Argon2Params,
  outputLength: number,
) => Promise<Uint8Array>;

/**
 * The engine `argon2idHasher` picks on this runtime when none is given: `"native"` (@node-rs/argon2) or
 * `"portable"` (@noble/hashes). Chosen by the `#native-argon2` import conditions; reported by the runtime tests.
 *
 * @example
 * import { argon2idEngine } from "@latchkey/core";
 * console.log(`argon2id engine: ${argon2idEngine}`);
 */
export const argon2idEngine: "native" | "portable" = nativeArgon2idRaw ? "native" : "portable";

/**
 * How many hashes `passwordHashing.concurrency` lets run at once by default: the native engine runs on libuv's
 * thread pool (`UV_THREADPOOL_SIZE`, default 4, and no more than the CPUs available), so more would only queue
 * there (in front of file reads and DNS); the portable engine runs on the main thread, where a second hash in
 * flight only adds 19 MiB and latency.
 */
export const defaultHashConcurrency: number = argon2idEngine === "native" ? nativeArgon2Threads : 1;

export const portableArgon2idRaw: Argon2idRaw = (password, salt, p, dkLen) =>
  argon2idAsync(password, salt, { m: p.memoryCost, t: p.timeCost, p: p.parallelism, dkLen });

function b64(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s).replace(/=+$/, "");
}

function unb64(text: string): Uint8Array | null {
  try {
    const s = atob(text + "=".repeat((4 - (text.length % 4)) % 4));
    return Uint8Array.from(s, (c) => c.charCodeAt(0));
  } catch {
    return null;
  }
}

const PHC = /^\$argon2id\$v=19\$m=(\d{1,7}),t=(\d{1,3}),p=(\d{1,3})\$([A-Za-z0-9+/]{11,})\$([A-Za-z0-9+/]{11,})$/;

/**
 * argon2id in PHC format (`$argon2id$v=19$m=19456,t=2,p=1$salt$hash`), the same string on every runtime,
 * so a database written on Node verifies on Workers and back.
 *
 * @example
 * import { argon2idHasher } from "@latchkey/core";
 * const hasher = argon2idHasher({ random });
 * const phc = await hasher.hash("correct horse battery staple");
 */
export function argon2idHasher(options: {
  random: Random;
  params?: Argon2Params;
  engine?: Argon2idRaw;
}): PasswordHasher {
  const params = options.params ?? DEFAULT_ARGON2_PARAMS;
  const engine = options.engine ?? nativeArgon2idRaw ?? portableArgon2idRaw;
  return {
    async hash(password) {
      const salt = options.random.bytes(16);
      const out = await engine(utf8(password), salt, params, 32);
      return `$argon2id$v=19$m=${params.memoryCost},t=${params.timeCost},p=${params.parallelism}$${b64(salt)}$${b64(out)}`;
    },
    async verify(hash, password) {
      const m = PHC.exec(hash);
      if (!m) return false;
      const salt = unb64(m[4]!);
      const expected = unb64(m[5]!);
      if (!salt || !expected) return false;
      const p = { memoryCost: Number(m[1]), timeCost: Number(m[2]), parallelism: Number(m[3]) };
      const actual = await engine(utf8(password), salt, p, expected.length);
      return constantTimeEqual(actual, expected);
    },
  };
}
