import { defineConfig } from "drizzle-kit";

// `pnpm --filter @latchkey/drizzle-store generate` writes new migrations next to the checked-in ones.
export default defineConfig({
  dialect: "sqlite",
  schema: "./src/sqlite/schema.ts",
  out: "../../drizzle/sqlite",
});
