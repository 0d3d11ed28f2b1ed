import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { captureOutput, findLeaks } from "./secret-scanner.ts";

describe("the log-secrecy scanner can fail", () => {
  const secret = { label: "session token", value: "Zq3t0-planted_secret_token_value_for_the_scanner" };

  it("finds a planted secret in captured console output, and finds nothing when it is absent", () => {
    const capture = captureOutput();
    try {
      console.log("[latchkey email] to=ada@example.com template=otp-sign-in");
      console.error(`oops, leaked ${secret.value}`);
    } finally {
      capture.stop();
    }
    const leaks = findLeaks({ stdout: capture.stdout.join("\n"), stderr: capture.stderr.join("\n") }, [secret]);
    expect(leaks).toEqual([{ label: "session token", form: "plain", where: "stderr" }]);
    expect(findLeaks({ stdout: capture.stdout.join("\n") }, [secret])).toEqual([]);
  });

  it("finds the hashes of a secret (as stored, and hex/base64 as a logger would print them) in events and rows", () => {
    const digest = createHash("sha256").update(secret.value).digest();
    const captured = {
      events: JSON.stringify([{ type: "SessionRevoked", tokenHash: digest.toString("base64url") }]),
      audit: JSON.stringify([{ data: { note: digest.toString("hex") } }]),
      errors: `{"message":"${digest.toString("base64")}"}`,
    };
    expect(
      findLeaks(captured, [secret])
        .map((l) => `${l.form}@${l.where}`)
        .sort(),
    ).toEqual(["sha256-base64@errors", "sha256-base64url@events", "sha256-hex@audit"]);
  });

  it("writes through process.stdout and process.stderr are captured too", () => {
    const capture = captureOutput();
    try {
      process.stdout.write(`raw ${secret.value}\n`);
    } finally {
      capture.stop();
    }
    expect(findLeaks({ stdout: capture.stdout.join("") }, [secret])).toHaveLength(1);
  });
});
