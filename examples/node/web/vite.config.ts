import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

// The demo's pages: the app (index.html) and a stand-alone page for the cross-origin check (spa.html).
// Built to examples/node/dist-web, which src/server.ts serves beside the API.
export default defineConfig({
  root: here("."),
  base: "/",
  esbuild: { jsx: "automatic" },
  build: {
    outDir: here("../dist-web"),
    emptyOutDir: true,
    rollupOptions: { input: { main: here("index.html"), spa: here("spa.html") } },
  },
});
