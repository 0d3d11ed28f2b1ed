import { json } from "@sveltejs/kit";
import type { RequestHandler } from "./$types";

// A JSON route guarded by the hook's locals: 401 in Latchkey's error shape without a session.
export const GET: RequestHandler = ({ locals }) => {
  if (!locals.user) return json({ code: "INVALID_CREDENTIALS", message: "Sign in first" }, { status: 401 });
  return json({ email: locals.user.email, sessionId: locals.session?.id ?? null });
};
