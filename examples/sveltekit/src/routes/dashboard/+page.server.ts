import { redirect } from "@sveltejs/kit";
import type { PageServerLoad } from "./$types";

// The protected page: signed-out visitors go to the home page.
export const load: PageServerLoad = ({ locals }) => {
  if (!locals.user) redirect(303, "/");
  return { email: locals.user.email, sessionId: locals.session?.id ?? null };
};
