import { defineConfig } from "tsdown";
import { libraryBuild } from "../../tsdown.shared.ts";

export default defineConfig(libraryBuild({ entry: { index: "src/index.ts", bin: "src/bin.ts" }, platform: "node" }));
