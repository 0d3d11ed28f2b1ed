import { svelte } from "@sveltejs/vite-plugin-svelte";
import { svelteTesting } from "@testing-library/svelte/vite";
import { defineProject } from "vitest/config";
import { workspaceSources } from "../../test/vitest-sources.ts";

// The Svelte plugins compile the component the Svelte binding's test renders (test/*.svelte) and resolve
// Svelte's browser build for it, as an app's bundler would; the other dependencies stay Node's.
export default defineProject({
  plugins: [svelte(), svelteTesting()],
  test: { name: "client" },
  resolve: { alias: workspaceSources() },
});
