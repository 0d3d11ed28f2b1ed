import { createHash } from "node:crypto";

/** A secret the flows produced (a code, token, key, password, JWT or a stored hash) and what it is. */
export interface KnownSecret {
  label: string;
  value: string;
}

/** One place a secret (or one of its hashes) was found. */
export interface Leak {
  label: string;
  form: string;
  where: string;
}

/**
 * The forms a secret can leak in: as is, and its SHA-256 in the encodings a log might carry (base64url is what
 * the stores keep; hex and base64 are what a careless logger would print).
 */
function secretForms(value: string): Array<[form: string, text: string]> {
  const digest = createHash("sha256").update(value, "utf8").digest();
  return [
    ["plain", value],
    ["sha256-base64url", digest.toString("base64url")],
    ["sha256-hex", digest.toString("hex")],
    ["sha256-base64", digest.toString("base64")],
  ];
}

/**
 * Every occurrence of any form of any secret in the captured texts (`where` -> text). Empty when nothing leaked.
 *
 * @example
 * findLeaks({ stdout: "token=abc" }, [{ label: "session token", value: "abc" }]); // [{ label, form: "plain", where: "stdout" }]
 */
export function findLeaks(captured: Record<string, string>, secrets: readonly KnownSecret[]): Leak[] {
  const leaks: Leak[] = [];
  for (const secret of secrets) {
    for (const [form, text] of secretForms(secret.value)) {
      for (const [where, haystack] of Object.entries(captured))
        if (haystack.includes(text)) leaks.push({ label: secret.label, form, where });
    }
  }
  return leaks;
}

/** Captures every line written through `console.*`, `process.stdout` and `process.stderr` until `stop()`. */
export function captureOutput(): { stdout: string[]; stderr: string[]; stop(): void } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const text = (args: unknown[]) =>
    args
      .map((a) =>
        typeof a === "string"
          ? a
          : a instanceof Error
            ? `${a.name}: ${a.message}\n${a.stack ?? ""}`
            : JSON.stringify(a),
      )
      .join(" ");
  const saved = {
    log: console.log,
    info: console.info,
    debug: console.debug,
    warn: console.warn,
    error: console.error,
    trace: console.trace,
  };
  const out = process.stdout.write.bind(process.stdout);
  const err = process.stderr.write.bind(process.stderr);
  console.log = console.info = console.debug = (...args: unknown[]) => void stdout.push(text(args));
  console.warn = console.error = console.trace = (...args: unknown[]) => void stderr.push(text(args));
  process.stdout.write = ((chunk: string | Uint8Array) => (
    stdout.push(String(chunk)), true
  )) as typeof process.stdout.write;
  process.stderr.write = ((chunk: string | Uint8Array) => (
    stderr.push(String(chunk)), true
  )) as typeof process.stderr.write;
  return {
    stdout,
    stderr,
    stop() {
      Object.assign(console, saved);
      process.stdout.write = out;
      process.stderr.write = err;
    },
  };
}
