export { generateSecret } from "./secret.ts";
