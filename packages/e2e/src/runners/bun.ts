// Bun runner: `bun run src/runners/bun.ts [--hashes <file>]` (the `bun` binary comes from npm, see package.json).
import type { HashEntry } from "../argon2-exchange.ts";
import { runFailed, runOnThisRuntime } from "./run-runtime.ts";

declare const Bun: { argv: string[]; file(path: string): { json(): Promise<unknown> } };
declare const process: { exit(code: number): never };

const at = Bun.argv.indexOf("--hashes");
const incoming = at === -1 ? null : ((await Bun.file(Bun.argv[at + 1]!).json()) as HashEntry[]);
const report = await runOnThisRuntime("bun", { incoming, log: (line) => console.log(line) });
process.exit(runFailed(report) ? 1 : 0);
