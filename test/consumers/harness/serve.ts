import { spawn, type ChildProcess } from "node:child_process";
import { consumerEnv } from "./projects.ts";

/** A `latchkey serve` started from a consumer project's node_modules/.bin, with what it printed. */
export interface ServeProcess {
  child: ChildProcess;
  output(): string;
  exit: Promise<number | null>;
}

/** Runs the installed bin (`node_modules/.bin/latchkey serve ...`) without the workspace's NODE_PATH. */
export function startServe(cwd: string, args: string[], env: NodeJS.ProcessEnv): ServeProcess {
  const childEnv = consumerEnv(env);
  const child = spawn(`${cwd}/node_modules/.bin/latchkey`, ["serve", ...args], {
    cwd,
    env: childEnv,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let text = "";
  const collect = (d: Buffer) => {
    text += d.toString();
  };
  child.stdout!.on("data", collect);
  child.stderr!.on("data", collect);
  const exit = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, output: () => text, exit };
}

/** Resolves with the URL `latchkey serve` says it listens on; rejects when it exits first. */
export async function listening(server: ServeProcess): Promise<string> {
  for (;;) {
    const match = /latchkey listening on (http:\/\/\S+)/.exec(server.output());
    if (match) return match[1]!;
    if (server.child.exitCode !== null)
      throw new Error(`latchkey serve exited (${server.child.exitCode}):\n${server.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Waits until `text` appears `count` times in the output. */
export async function printed(server: ServeProcess, text: string, count = 1): Promise<void> {
  while (server.output().split(text).length - 1 < count) {
    if (server.child.exitCode !== null) throw new Error(`latchkey serve exited:\n${server.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * A config for the SIGTERM case (plain ESM, written into the consumer project): the database from the
 * environment, and a password hasher that announces each hash and holds it for a second and a half, so the test
 * knows the requests are inside the server when it sends the signal.
 */
export const SLOW_CONFIG = `import { argon2idHasher, webCryptoRandom } from "@latchkey/core";
import { openDrizzleStore } from "@latchkey/drizzle-store";

const fast = argon2idHasher({ random: webCryptoRandom, params: { memoryCost: 256, timeCost: 1, parallelism: 1 } });

export default async (env) => ({
  secret: env.LATCHKEY_SECRET,
  baseUrl: "http://127.0.0.1",
  database: await openDrizzleStore(env.LATCHKEY_DATABASE_URL),
  passwordHasher: {
    verify: (hash, password) => fast.verify(hash, password),
    async hash(password) {
      process.stderr.write("HASHING\\n");
      await new Promise((resolve) => setTimeout(resolve, 1500));
      return fast.hash(password);
    },
  },
});
`;

/** A config createAuth refuses: a misspelt option. */
export const BAD_CONFIG = `import { memoryStore } from "@latchkey/memory-store";

export default { secret: "b".repeat(40), baseUrl: "http://127.0.0.1", database: memoryStore(), sesion: { expiresIn: "1d" } };
`;
