import { sha256 } from "@noble/hashes/sha2.js";
import { describe, expect, it } from "vitest";
import { nativeSha256 } from "#native-sha256";
import { nativeSha256 as webSha256 } from "./native-sha256.web.ts";
import { base64url, hashSecret, utf8 } from "./crypto.ts";

const portable = (text: string) => base64url(sha256(utf8(text)));

// Every stored hash (sessions, codes, link tokens, API keys) was written by one runtime and is read by any other:
// the native digest must give exactly the portable bytes.
const INPUTS = [
  "",
  "abc",
  "x".repeat(43),
  "lk_live_0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJ",
  "ada@example.com",
  "grüße, 日本語, 🔑",
  "lone \uD800 surrogate and \uDFFF",
  "a".repeat(10_000),
];

describe("#native-sha256", () => {
  it("is node:crypto on Node, none on the web variant", () => {
    expect(nativeSha256).toBeTypeOf("function");
    expect(webSha256).toBeNull();
  });

  it("gives the portable digest for every input, the known vector included", () => {
    expect(hashSecret("abc")).toBe("ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0");
    for (const text of INPUTS) {
      expect(nativeSha256!(text)).toBe(portable(text));
      expect(hashSecret(text)).toBe(portable(text));
    }
  });
});
