export { generateSecret } from "./secret/index.ts";
export { runCli } from "./cli.ts";
