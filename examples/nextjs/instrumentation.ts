// Runs once when the Next.js server starts (`next start`, `next dev`): the auth is built here, so a production
// server without what it needs (LATCHKEY_SECRET, LATCHKEY_PROXY_HOPS) refuses to start, saying what to set, instead
// of failing at its first request.
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { getAuth } = await import("./lib/auth");
  getAuth();
}
