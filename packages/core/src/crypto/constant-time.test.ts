import { describe, expect, it } from "vitest";
import { constantTimeEqual, hashSecret, utf8 } from "./crypto.ts";

describe("constantTimeEqual", () => {
  it("two strings: equal exactly when identical, whatever the length or where they differ", () => {
    const hash = hashSecret("lk_live_key");
    expect(constantTimeEqual(hash, hashSecret("lk_live_key"))).toBe(true);
    expect(constantTimeEqual("", "")).toBe(true);
    expect(constantTimeEqual(hash, hashSecret("lk_live_kez"))).toBe(false);
    expect(constantTimeEqual(hash, `${hash.slice(0, -1)}x`)).toBe(false);
    expect(constantTimeEqual(hash, `x${hash.slice(1)}`)).toBe(false);
    expect(constantTimeEqual(hash, hash.slice(0, -1))).toBe(false);
    expect(constantTimeEqual(`${hash}\u0000`, hash)).toBe(false);
    expect(constantTimeEqual("", "\u0000")).toBe(false);
    expect(constantTimeEqual("é", "e\u0301")).toBe(false);
    // Two different lone surrogates encode to the same UTF-8 (U+FFFD) but are different strings.
    expect(constantTimeEqual("\uD800", "\uD801")).toBe(false);
    expect(constantTimeEqual("日本", "日本")).toBe(true);
  });

  it("bytes, and a string against bytes, compare the UTF-8 bytes", () => {
    expect(constantTimeEqual(utf8("abc"), utf8("abc"))).toBe(true);
    expect(constantTimeEqual(utf8("abc"), utf8("abd"))).toBe(false);
    expect(constantTimeEqual("grüße", utf8("grüße"))).toBe(true);
    expect(constantTimeEqual(new Uint8Array([0]), new Uint8Array([]))).toBe(false);
  });
});
