import { defineConfig } from "drizzle-kit";

// `pnpm --filter @latchkey/drizzle-store generate` writes new migrations next to the checked-in ones.
export default defineConfig({
  dialect: "postgresql",
  schema: "./src/pg/schema.ts",
  out: "../../drizzle/pg",
});
