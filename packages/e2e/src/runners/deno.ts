// Deno runner: `deno run --no-prompt --allow-read src/runners/deno.ts [--hashes <file>]` (deno comes from npm).
import type { HashEntry } from "../argon2-exchange.ts";
import { runFailed, runOnThisRuntime } from "./run-runtime.ts";

declare const Deno: { args: string[]; readTextFile(path: string): Promise<string>; exit(code: number): never };

const at = Deno.args.indexOf("--hashes");
const incoming = at === -1 ? null : (JSON.parse(await Deno.readTextFile(Deno.args[at + 1]!)) as HashEntry[]);
const report = await runOnThisRuntime("deno", { incoming, log: (line) => console.log(line) });
Deno.exit(runFailed(report) ? 1 : 0);
