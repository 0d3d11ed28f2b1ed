export { initCommand } from "./init.ts";
export { starterConfig } from "./template.ts";
