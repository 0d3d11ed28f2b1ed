export { adminCommand } from "./admin.ts";
