export { registerDocsRoutes } from "./docs.ts";
export type { DocsOptions } from "./docs.ts";
