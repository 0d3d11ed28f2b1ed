// The example's config with one change for the journey test: instances re-read the signing key every second
// (instead of every minute), so a rotation made by another process is signed with one second later.
import { jwt } from "@latchkey/core";
import config from "../latchkey.config.ts";

export const KEY_CACHE_TTL_MS = 1000;

export default async (env: Record<string, string | undefined>) => {
  const options = await config(env);
  return {
    ...options,
    plugins: [
      jwt({ expiresIn: "15m", keyCacheTtl: KEY_CACHE_TTL_MS / 1000 }),
      ...options.plugins.filter((p) => p.id !== "jwt"),
    ],
  };
};
