// Copies drizzle-kit's output (drizzle/pg, drizzle/sqlite at the repository root) into the drizzle-store package's
// migrations/ folder, which ships in its tarball and which the store finds relative to its own dist/.
import { cpSync, rmSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const target = `${root}packages/drizzle-store/migrations`;
rmSync(target, { recursive: true, force: true });
cpSync(`${root}drizzle/pg`, `${target}/pg`, { recursive: true });
cpSync(`${root}drizzle/sqlite`, `${target}/sqlite`, { recursive: true });
