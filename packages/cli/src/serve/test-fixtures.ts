import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";

// For the serve tests (serve*.test.ts): `latchkey serve` run as a process, from the built bin, on a config of fixtures/.

const bin = fileURLToPath(new URL("../../dist/bin.js", import.meta.url));
export const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));
export const SECRET = "serve-test-secret-0123456789abcdef-0123456789";
export const PASSWORD = "a serve test password";

interface Served {
  child: ChildProcess;
  url: string;
  stdout(): string;
  stderr(): string;
  exit: Promise<number | null>;
}

/** Runs `latchkey serve` (the built bin) and resolves once it says where it listens, or rejects if it exits first. */
export async function serve(args: string[], env: Record<string, string> = {}): Promise<Served> {
  const child = spawn(process.execPath, [bin, "serve", "--port", "0", ...args], {
    env: { ...process.env, TEST_SECRET: SECRET, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout!.on("data", (d: Buffer) => void (out += d.toString()));
  child.stderr!.on("data", (d: Buffer) => void (err += d.toString()));
  const exit = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const check = () => {
      const match = /latchkey listening on (http:\/\/\S+)/.exec(out);
      if (match) resolve(match[1]!);
    };
    child.stdout!.on("data", check);
    void exit.then((code) => reject(new Error(`latchkey serve exited (${code}) before listening:\n${out}\n${err}`)));
  });
  return { child, url, exit, stdout: () => out, stderr: () => err };
}

/** Runs `latchkey serve` expecting it to refuse to start. */
export async function refused(args: string[], env: Record<string, string> = {}, cwd?: string) {
  const child = spawn(process.execPath, [bin, "serve", "--port", "0", ...args], {
    cwd,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout!.on("data", (d: Buffer) => void (out += d.toString()));
  child.stderr!.on("data", (d: Buffer) => void (err += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.once("exit", (c) => resolve(c)));
  return { code, stdout: out, stderr: err };
}

export const signUp = (url: string, email: string) =>
  fetch(`${url}/auth/sign-up/email`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email, password: PASSWORD }),
  });
