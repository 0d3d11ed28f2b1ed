export { initCommand } from "./init.ts";
