import type { Argon2idRaw } from "./argon2.ts";
import { loadNodeRsArgon2 } from "./node-rs-argon2.ts";

// Selected by the "node" condition of `#native-argon2` (Node, Bun); without the optional `@node-rs/argon2` the
// portable engine takes over.
export const nativeArgon2idRaw: Argon2idRaw | null = await loadNodeRsArgon2();
