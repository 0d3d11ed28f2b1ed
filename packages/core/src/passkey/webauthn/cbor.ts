/**
 * A strict decoder for the CBOR that WebAuthn uses (RFC 8949, the CTAP2 canonical subset): unsigned and negative
 * integers, byte and text strings, arrays, maps, `false`, `true` and `null`, definite lengths only. Anything else
 * (floats, tags, indefinite lengths, integers past 2^53, nesting deeper than 16) is malformed: a passkey response never
 * carries it, and refusing it keeps the decoder small and its cost bounded by the input's size.
 */

/** A decoded CBOR value. Maps keep their keys' types (COSE keys are integers), so they decode to `Map`. */
export type CborValue = number | string | boolean | null | Uint8Array | CborValue[] | Map<number | string, CborValue>;

/** Malformed CBOR (the message says where); callers turn it into a 400. */
export class CborError extends Error {}

const MAX_DEPTH = 16;

/**
 * Decodes the CBOR item at `offset` of `bytes`: the value and where it ends.
 *
 * @example
 * const { value, end } = decodeCbor(new Uint8Array([0xa1, 0x01, 0x02])); // Map { 1 => 2 }, 3
 */
export function decodeCbor(bytes: Uint8Array, offset = 0): { value: CborValue; end: number } {
  let at = offset;
  const need = (n: number) => {
    if (at + n > bytes.length) throw new CborError(`CBOR ends early at byte ${at}`);
  };
  const argument = (info: number): number => {
    if (info < 24) return info;
    const size = info === 24 ? 1 : info === 25 ? 2 : info === 26 ? 4 : info === 27 ? 8 : 0;
    if (size === 0) throw new CborError(`unsupported CBOR length encoding at byte ${at - 1}`);
    need(size);
    let n = 0;
    for (let i = 0; i < size; i++) n = n * 256 + bytes[at + i]!;
    at += size;
    if (!Number.isSafeInteger(n)) throw new CborError("CBOR integer too large");
    return n;
  };
  const item = (depth: number): CborValue => {
    if (depth > MAX_DEPTH) throw new CborError("CBOR nested too deeply");
    need(1);
    const initial = bytes[at++]!;
    const major = initial >> 5;
    const info = initial & 0x1f;
    switch (major) {
      case 0:
        return argument(info);
      case 1:
        return -1 - argument(info);
      case 2:
      case 3: {
        const length = argument(info);
        need(length);
        const slice = bytes.slice(at, at + length);
        at += length;
        if (major === 2) return slice;
        try {
          return new TextDecoder("utf-8", { fatal: true }).decode(slice);
        } catch {
          throw new CborError("CBOR text is not UTF-8");
        }
      }
      case 4: {
        const length = argument(info);
        // Every item takes at least one byte: a length past what is left is malformed (and bounds the loop).
        need(length);
        const out: CborValue[] = [];
        for (let i = 0; i < length; i++) out.push(item(depth + 1));
        return out;
      }
      case 5: {
        const length = argument(info);
        need(length * 2);
        const out = new Map<number | string, CborValue>();
        for (let i = 0; i < length; i++) {
          const key = item(depth + 1);
          if (typeof key !== "number" && typeof key !== "string")
            throw new CborError("CBOR map key is not a number or text");
          if (out.has(key)) throw new CborError("CBOR map has a duplicate key");
          out.set(key, item(depth + 1));
        }
        return out;
      }
      case 7:
        if (info === 20) return false;
        if (info === 21) return true;
        if (info === 22) return null;
        throw new CborError(`unsupported CBOR simple value or float at byte ${at - 1}`);
      default:
        throw new CborError(`unsupported CBOR tag at byte ${at - 1}`);
    }
  };
  const value = item(0);
  return { value, end: at };
}

/**
 * Decodes `bytes` as exactly one CBOR item (trailing bytes are malformed).
 *
 * @example
 * decodeCborWhole(attestationObject); // Map { "fmt" => "none", "attStmt" => Map {}, "authData" => Uint8Array }
 */
export function decodeCborWhole(bytes: Uint8Array): CborValue {
  const { value, end } = decodeCbor(bytes);
  if (end !== bytes.length) throw new CborError("trailing bytes after the CBOR item");
  return value;
}
