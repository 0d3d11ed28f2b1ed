export { registerDocsRoutes } from "./docs.ts";
