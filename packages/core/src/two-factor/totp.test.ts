import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { utf8, webCryptoRandom } from "../index.ts";
import {
  base32Decode,
  base32Encode,
  hotp,
  matchTotp,
  totp,
  totpStep,
  totpURI,
  type TotpAlgorithm,
  type TotpParams,
} from "./totp.ts";

// RFC 6238, appendix B: the seeds are ASCII "1234567890" repeated to the hash's length.
const SEEDS: Record<TotpAlgorithm, string> = {
  SHA1: "12345678901234567890",
  SHA256: "12345678901234567890123456789012",
  SHA512: "1234567890123456789012345678901234567890123456789012345678901234",
};
const RFC_6238: Array<[seconds: number, sha1: string, sha256: string, sha512: string]> = [
  [59, "94287082", "46119246", "90693936"],
  [1111111109, "07081804", "68084774", "25091201"],
  [1111111111, "14050471", "67062674", "99943326"],
  [1234567890, "89005924", "91819424", "93441116"],
  [2000000000, "69279037", "90698825", "38618901"],
  [20000000000, "65353130", "77737706", "47863826"],
];

describe("TOTP (RFC 6238) and HOTP (RFC 4226)", () => {
  it("HOTP matches RFC 4226 appendix D", () => {
    const expected = ["755224", "287082", "359152", "969429", "338314", "254676", "287922", "162583", "399871"];
    expected.push("520489");
    const key = utf8(SEEDS.SHA1);
    expect(expected.map((_, counter) => hotp(key, counter, 6, "SHA1"))).toEqual(expected);
  });

  it.each(RFC_6238)("RFC 6238 appendix B at T=%i (SHA-1, SHA-256, SHA-512; 8 digits)", (seconds, ...codes) => {
    const algorithms: TotpAlgorithm[] = ["SHA1", "SHA256", "SHA512"];
    const got = algorithms.map((algorithm) =>
      totp(utf8(SEEDS[algorithm]), seconds * 1000, { digits: 8, period: 30, algorithm }),
    );
    expect(got).toEqual(codes);
  });

  it("base32 follows RFC 4648's vectors and refuses other characters", () => {
    const vectors: Array<[string, string]> = [
      ["", ""],
      ["f", "MY"],
      ["fo", "MZXQ"],
      ["foo", "MZXW6"],
      ["foob", "MZXW6YQ"],
      ["fooba", "MZXW6YTB"],
      ["foobar", "MZXW6YTBOI"],
    ];
    for (const [plain, encoded] of vectors) {
      expect(base32Encode(utf8(plain))).toBe(encoded);
      expect(base32Decode(encoded)).toEqual(utf8(plain));
      expect(base32Decode(`${encoded.toLowerCase()}======`)).toEqual(utf8(plain));
    }
    expect(base32Decode("MZXW1")).toBeNull();
    const random = webCryptoRandom.bytes(20);
    expect(base32Decode(base32Encode(random))).toEqual(random);
  });

  it("matchTotp accepts the steps within `window` and only those later than the last accepted step", () => {
    const key = webCryptoRandom.bytes(20);
    const params: TotpParams = { digits: 6, period: 30, algorithm: "SHA1" };
    const now = 1_800_000_000_000;
    const step = totpStep(now, 30);
    const code = (offset: number) => hotp(key, step + offset, 6, "SHA1");
    expect(matchTotp(key, code(0), now, params, 1, null)).toBe(step);
    expect(matchTotp(key, code(-1), now, params, 1, null)).toBe(step - 1);
    expect(matchTotp(key, code(1), now, params, 1, null)).toBe(step + 1);
    expect(matchTotp(key, code(-2), now, params, 1, null)).toBeNull();
    expect(matchTotp(key, code(2), now, params, 1, null)).toBeNull();
    expect(matchTotp(key, code(-1), now, params, 0, null)).toBeNull();
    // Replay: the step already used, and any earlier one, are refused.
    expect(matchTotp(key, code(0), now, params, 1, step)).toBeNull();
    expect(matchTotp(key, code(-1), now, params, 1, step)).toBeNull();
    expect(matchTotp(key, code(1), now, params, 1, step)).toBe(step + 1);
    for (const bad of ["", "12345", "1234567", "12345a", " 23456"])
      expect(matchTotp(key, bad, now, params, 1, null)).toBeNull();
  });

  it("totpURI is the Key URI Format; the WHATWG URL parser reads every parameter back", () => {
    const uri = totpURI({
      issuer: "Acme & Co",
      account: "ada+1@example.com",
      secret: "JBSWY3DPEHPK3PXP",
      digits: 6,
      period: 30,
      algorithm: "SHA1",
    });
    const url = new URL(uri);
    expect(url.protocol).toBe("otpauth:");
    expect(url.host).toBe("totp");
    expect(decodeURIComponent(url.pathname)).toBe("/Acme & Co:ada+1@example.com");
    expect(Object.fromEntries(url.searchParams)).toEqual({
      secret: "JBSWY3DPEHPK3PXP",
      issuer: "Acme & Co",
      algorithm: "SHA1",
      digits: "6",
      period: "30",
    });
  });
});

/** oath-toolkit's code for a base32 secret at `seconds` (null when oathtool is not installed). */
function oathtool(secret: string, seconds: number, params: TotpParams): string | null {
  const mode = params.algorithm === "SHA1" ? "--totp" : `--totp=${params.algorithm.toLowerCase()}`;
  const args = [mode, "-b", "-d", String(params.digits), "-s", `${params.period}s`, "--now", `@${seconds}`, secret];
  const run = spawnSync("oathtool", args, { encoding: "utf8" });
  if (run.error && (run.error as NodeJS.ErrnoException).code === "ENOENT") return null;
  if (run.status !== 0) throw new Error(`oathtool failed: ${run.stderr}`);
  return run.stdout.trim();
}

describe("TOTP against oath-toolkit's oathtool (an independent C implementation)", () => {
  const cases: Array<TotpParams & { keyBytes: number }> = [
    { digits: 6, period: 30, algorithm: "SHA1", keyBytes: 20 },
    { digits: 8, period: 30, algorithm: "SHA256", keyBytes: 32 },
    { digits: 6, period: 60, algorithm: "SHA512", keyBytes: 64 },
  ];
  it.for(cases)("$algorithm, $digits digits, $period s: oathtool's codes from the URI's secret are ours", (c, ctx) => {
    const { keyBytes, ...params } = c;
    const key = webCryptoRandom.bytes(keyBytes);
    const uri = totpURI({ issuer: "Latchkey", account: "ada@example.com", secret: base32Encode(key), ...params });
    // The secret as an authenticator app gets it: out of the URI.
    const secret = new URL(uri).searchParams.get("secret")!;
    // The last one is a time step past 2^32 (the counter's high word).
    const times = [0, 59, 1_111_111_109, 1_700_000_000, 1_800_000_029, 2_000_000_000, 130_000_000_000];
    const theirs = times.map((seconds) => oathtool(secret, seconds, params));
    // The independent implementation is a real part of the test: missing, the test fails (pnpm test installs it).
    if (theirs[0] === null)
      throw new Error("oathtool is not installed: apt-get install oathtool (pnpm test does it as root)");
    expect(times.map((seconds) => totp(key, seconds * 1000, params))).toEqual(theirs);
    // And what oathtool prints is accepted by the verifier at that time.
    for (const [i, seconds] of times.entries())
      expect(matchTotp(key, theirs[i]!, seconds * 1000, params, 1, null)).toBe(totpStep(seconds * 1000, params.period));
  });
});
