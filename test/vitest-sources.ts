import { fileURLToPath } from "node:url";

const source = (path: string) => fileURLToPath(new URL(`../packages/${path}`, import.meta.url));

/** Every public entry of the workspace packages, and the runtime-selected `#imports` files (Node variants). */
const ENTRIES: Record<string, string> = {
  "@latchkey/core": "core/src/index.ts",
  "@latchkey/core/internal": "core/src/internal.ts",
  "@latchkey/hono-adapter": "hono-adapter/src/index.ts",
  "@latchkey/hono-adapter/esbuild": "hono-adapter/src/build/zod-english.ts",
  "@latchkey/hono-adapter/node": "hono-adapter/src/node/node-handler.ts",
  "@latchkey/memory-store": "memory-store/src/index.ts",
  "@latchkey/drizzle-store": "drizzle-store/src/index.ts",
  "@latchkey/drizzle-store/postgres": "drizzle-store/src/postgres.ts",
  "@latchkey/drizzle-store/postgres-js": "drizzle-store/src/postgres-js.ts",
  "@latchkey/drizzle-store/sqlite": "drizzle-store/src/sqlite.ts",
  "@latchkey/drizzle-store/d1": "drizzle-store/src/d1.ts",
  "@latchkey/mongo-store": "mongo-store/src/index.ts",
  "@latchkey/redis-store": "redis-store/src/index.ts",
  "@latchkey/resend-sender": "resend-sender/src/index.ts",
  "@latchkey/store-conformance": "store-conformance/src/index.ts",
  "@latchkey/client": "client/src/index.ts",
  "@latchkey/client/react": "client/src/react.ts",
  "@latchkey/client/vue": "client/src/vue.ts",
  "@latchkey/client/svelte": "client/src/svelte.ts",
  "@latchkey/cli": "cli/src/index.ts",
  // A package's `imports` map points at its dist/: the sources' Node variants instead.
  "#native-argon2": "core/src/password/native-argon2.node.ts",
  "#native-jws": "core/src/jwt/native-jws.node.ts",
  "#native-sha256": "core/src/crypto/native-sha256.node.ts",
  "#scalar-script": "hono-adapter/src/routes/docs/scalar-script.node.ts",
};

const escapeRegExp = (name: string) => name.replace(/[/.]/g, "\\$&");

/**
 * Vitest aliases that resolve the workspace packages to their sources, so `vitest run` (or one file) tests the code
 * as it is now, not the last build. Every project's config uses them except the consumer tests, which install the
 * packed tarballs on purpose. Child processes (Bun, Deno, workerd, servers a test starts) still load the built
 * packages: those tests need `turbo run build` first, which `pnpm test` runs through typecheck's dependencies.
 *
 * @example
 * export default defineProject({ test: { name: "cli" }, resolve: { alias: workspaceSources() } });
 */
export function workspaceSources(): { find: RegExp; replacement: string }[] {
  return Object.entries(ENTRIES).map(([name, path]) => ({
    find: new RegExp(`^${escapeRegExp(name)}$`),
    replacement: source(path),
  }));
}
