import { hashRaw } from "@node-rs/argon2";
import type { Argon2idRaw } from "./argon2.ts";

// Selected by the "node" export condition (Node, Bun). 2 = Algorithm.Argon2id (a const enum in the typings).
export const nativeArgon2idRaw: Argon2idRaw | null = async (password, salt, p, outputLen) =>
  new Uint8Array(await hashRaw(password, { algorithm: 2, version: 1, memoryCost: p.memoryCost, timeCost: p.timeCost, parallelism: p.parallelism, outputLen, salt }));
