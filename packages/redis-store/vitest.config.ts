import { defineProject } from "vitest/config";
import { workspaceSources } from "../../test/vitest-sources.ts";

export default defineProject({ test: { name: "redis-store" }, resolve: { alias: workspaceSources() } });
