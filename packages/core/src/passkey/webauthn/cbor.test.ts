import { describe, expect, it } from "vitest";
import { CborError, decodeCbor, decodeCborWhole } from "./cbor.ts";

const bytes = (...b: number[]) => new Uint8Array(b);

describe("decodeCbor (the strict subset WebAuthn uses)", () => {
  it("decodes integers, strings, arrays, maps and simple values, and says where the item ends", () => {
    expect(decodeCborWhole(bytes(0x17))).toBe(23);
    expect(decodeCborWhole(bytes(0x18, 0xff))).toBe(255);
    expect(decodeCborWhole(bytes(0x19, 0x01, 0x00))).toBe(256);
    expect(decodeCborWhole(bytes(0x1a, 0xff, 0xff, 0xff, 0xff))).toBe(4_294_967_295);
    expect(decodeCborWhole(bytes(0x26))).toBe(-7);
    expect(decodeCborWhole(bytes(0x39, 0x01, 0x00))).toBe(-257);
    expect(decodeCborWhole(bytes(0x43, 1, 2, 3))).toEqual(bytes(1, 2, 3));
    expect(decodeCborWhole(bytes(0x63, 0x66, 0x6d, 0x74))).toBe("fmt");
    expect(decodeCborWhole(bytes(0x82, 0x01, 0xf5))).toEqual([1, true]);
    expect(decodeCborWhole(bytes(0xa2, 0x01, 0x02, 0x20, 0xf6))).toEqual(
      new Map<number, unknown>([
        [1, 2],
        [-1, null],
      ]),
    );
    expect(decodeCbor(bytes(0xa0, 0xff), 0)).toEqual({ value: new Map(), end: 1 });
  });

  it("refuses what a passkey response never carries, and malformed input, with CborError", () => {
    const bad = [
      bytes(0x5f, 0x41, 0x00, 0xff), // indefinite-length byte string
      bytes(0xbf, 0x01, 0x02, 0xff), // indefinite-length map
      bytes(0xf9, 0x3c, 0x00), // half float
      bytes(0xfb, 0, 0, 0, 0, 0, 0, 0, 0), // double
      bytes(0xc1, 0x00), // tag
      bytes(0x1b, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff), // past 2^53
      bytes(0x43, 1, 2), // byte string longer than the input
      bytes(0x9a, 0xff, 0xff, 0xff, 0xff), // an array claiming 4 billion items
      bytes(0xa2, 0x01, 0x02, 0x01, 0x03), // duplicate map key
      bytes(0xa1, 0x41, 0x00, 0x01), // byte-string map key
      bytes(0x62, 0xc3, 0x28), // text that is not UTF-8
      bytes(0x01, 0x02), // trailing bytes
      bytes(),
      bytes(...new Array(20).fill(0x81), 0x00), // well formed, but nested past 16
    ];
    for (const input of bad) expect(() => decodeCborWhole(input), [...input].join(",")).toThrow(CborError);
  });
});
