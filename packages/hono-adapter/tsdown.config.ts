import { defineConfig } from "tsdown";
import { libraryBuild } from "../../tsdown.shared.ts";

export default defineConfig(
  libraryBuild({
    entry: {
      index: "src/index.ts",
      esbuild: "src/build/zod-english.ts",
      node: "src/node/node-handler.ts",
      "scalar-script.node": "src/routes/docs/scalar-script.node.ts",
      "scalar-script.web": "src/routes/docs/scalar-script.web.ts",
    },
  }),
);
