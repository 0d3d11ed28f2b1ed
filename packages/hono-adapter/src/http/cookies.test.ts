import { describe, expect, it } from "vitest";
import { readCookie } from "./cookies.ts";

/** The rule `readCookie` implements, written the plain way: split at `;`, then at the first `=`, both trimmed. */
function reference(header: string | undefined, name: string): string | null {
  if (!header) return null;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
}

const HEADERS = [
  undefined,
  "",
  "lk=abc",
  " lk = abc ",
  "a=1; lk=abc; b=2",
  "a=1;lk=abc;b=2",
  "lk",
  "lk; lk=second",
  "a; b=lk=x; lk=y",
  "a=lk; lk=",
  "lk=a=b=c",
  "lkx=1; xlk=2; lk=3",
  "lk=first; lk=second",
  ";;lk=v;;",
  "a=1;",
  "=lk; lk=v",
  "a=1; LK=upper",
  "a=1; lk =spaced; lk=later",
];

describe("readCookie", () => {
  it("answers what splitting the header pair by pair answers, on every shape of header", () => {
    for (const header of HEADERS) {
      for (const name of ["lk", "a", "b", "lkx", "missing"]) {
        expect(readCookie(header, name), `${JSON.stringify(header)} ${name}`).toBe(reference(header, name));
      }
    }
    expect(readCookie("a=1; lk=abc; b=2", "lk")).toBe("abc");
    expect(readCookie("a; b=lk=x; lk=y", "lk")).toBe("y");
    expect(readCookie("lk=first; lk=second", "lk")).toBe("first");
  });
});
