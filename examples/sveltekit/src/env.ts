import { defineEnvVars } from "@sveltejs/kit/env";

// SvelteKit 3's environment: each variable declared once and read from $app/env/private when the server starts.
// None is required at build time; createAuth checks the secret when the server starts (the `init` hook).
export const variables = defineEnvVars({
  LATCHKEY_SECRET: {
    description: "Latchkey's secret: 32 characters or more (`npx latchkey secret` prints one).",
    schema: (value) => value,
  },
  LATCHKEY_BASE_URL: {
    description: "The app's public origin, e.g. https://app.example (the auth routes are at /auth under it).",
    schema: (value) => value ?? "http://localhost:5173",
  },
  EMAIL_WEBHOOK_URL: {
    description: "Optional: POST each email there as JSON (swap in your provider); unset, emails go to the console.",
    schema: (value) => value,
  },
});
