// The bytes a software authenticator writes: CBOR, base64url, and the small binary helpers of its structures.

export const encoder = new TextEncoder();

/** What `cbor()` encodes. */
export type Cbor = number | string | Uint8Array | Cbor[] | Map<number | string, Cbor>;

function head(major: number, length: number): number[] {
  if (length < 24) return [(major << 5) | length];
  if (length < 0x100) return [(major << 5) | 24, length];
  if (length < 0x10000) return [(major << 5) | 25, length >> 8, length & 0xff];
  return [(major << 5) | 26, (length >>> 24) & 0xff, (length >> 16) & 0xff, (length >> 8) & 0xff, length & 0xff];
}

/** CBOR (RFC 8949) of integers, text, byte strings, arrays and maps: all a WebAuthn attestation object needs. */
export function cbor(value: Cbor): Uint8Array {
  const out: number[] = [];
  const write = (v: Cbor): void => {
    if (typeof v === "number") {
      if (v >= 0) out.push(...head(0, v));
      else out.push(...head(1, -1 - v));
    } else if (typeof v === "string") {
      const bytes = encoder.encode(v);
      out.push(...head(3, bytes.length), ...bytes);
    } else if (v instanceof Uint8Array) {
      out.push(...head(2, v.length), ...v);
    } else if (Array.isArray(v)) {
      out.push(...head(4, v.length));
      for (const item of v) write(item);
    } else {
      out.push(...head(5, v.size));
      for (const [key, item] of v) {
        write(key);
        write(item);
      }
    }
  };
  write(value);
  return new Uint8Array(out);
}

export function b64url(bytes: Uint8Array): string {
  let text = "";
  for (const byte of bytes) text += String.fromCharCode(byte);
  return btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

export function fromB64url(text: string): Uint8Array {
  const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

export const concat = (...parts: Uint8Array[]) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
};

export const sha256 = async (bytes: Uint8Array) =>
  new Uint8Array(await crypto.subtle.digest("SHA-256", new Uint8Array(bytes)));

export const uint32 = (n: number) => new Uint8Array([(n >>> 24) & 0xff, (n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff]);
