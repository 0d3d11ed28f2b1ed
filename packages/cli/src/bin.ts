#!/usr/bin/env node
// The `latchkey` executable: compiled to dist/bin.js, run by Node directly (no loader, no build step at run time).
import { runCli } from "./cli.ts";

process.exitCode = await runCli(process.argv.slice(2));
