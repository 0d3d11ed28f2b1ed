import { defineProject } from "vitest/config";
import { workspaceSources } from "../../test/vitest-sources.ts";

export default defineProject({ test: { name: "resend-sender" }, resolve: { alias: workspaceSources() } });
