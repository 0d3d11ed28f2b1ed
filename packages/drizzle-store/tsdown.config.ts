import { defineConfig } from "tsdown";
import { libraryBuild } from "../../tsdown.shared.ts";

// The SQL migrations travel with the package: `build` copies the repository's drizzle-kit output (drizzle/) into
// migrations/, which the code finds relative to its own dist/.
export default defineConfig(
  libraryBuild({
    entry: {
      index: "src/index.ts",
      postgres: "src/postgres.ts",
      "postgres-js": "src/postgres-js.ts",
      sqlite: "src/sqlite.ts",
      d1: "src/d1.ts",
    },
  }),
);
