import node from "@astrojs/node";
import { defineConfig, envField } from "astro/config";

// On-demand rendering on Node: `astro build` writes dist/server/entry.mjs, a standalone server (HOST, PORT).
// Leave `security.allowedDomains` unset unless a proxy overwrites X-Forwarded-For: with it, Astro's
// `clientAddress` (the per-IP rate-limit key passed to Latchkey) is that header's first, client-set, entry.
export default defineConfig({
  output: "server",
  adapter: node({ mode: "standalone" }),
  env: {
    schema: {
      LATCHKEY_SECRET: envField.string({ context: "server", access: "secret", optional: true }),
      LATCHKEY_BASE_URL: envField.string({ context: "server", access: "secret", default: "http://localhost:4321" }),
      EMAIL_WEBHOOK_URL: envField.string({ context: "server", access: "secret", optional: true }),
    },
  },
});
