export { rotateJwksCommand } from "./rotate-jwks.ts";
