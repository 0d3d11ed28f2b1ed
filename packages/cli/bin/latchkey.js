#!/usr/bin/env node
// Runs the TypeScript sources through tsx so the CLI works from a checkout without a build step.
import { register } from "tsx/esm/api";

register();
const { runCli } = await import("../src/cli.ts");
process.exitCode = await runCli(process.argv.slice(2));
