import type { APIRoute } from "astro";

// A JSON route guarded by the middleware's locals: 401 in Latchkey's error shape without a session.
export const GET: APIRoute = ({ locals }) => {
  if (!locals.user) return Response.json({ code: "INVALID_CREDENTIALS", message: "Sign in first" }, { status: 401 });
  return Response.json({ email: locals.user.email, sessionId: locals.session?.id ?? null });
};
