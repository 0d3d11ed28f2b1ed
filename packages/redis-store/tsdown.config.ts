import { defineConfig } from "tsdown";
import { libraryBuild } from "../../tsdown.shared.ts";

export default defineConfig(libraryBuild({ index: "src/index.ts" }));
