import { defineConfig } from "tsdown";
import { libraryBuild } from "../../tsdown.shared.ts";

// The entries share the client's types: the shared chunk gets its own name so it never takes `index.d.ts`.
export default defineConfig(
  libraryBuild({
    entry: { index: "src/index.ts", react: "src/react.ts", vue: "src/vue.ts", svelte: "src/svelte.ts" },
    outputOptions: { chunkFileNames: "shared-[name].js" },
  }),
);
