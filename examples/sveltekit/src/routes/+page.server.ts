import type { PageServerLoad } from "./$types";

export const load: PageServerLoad = ({ locals }) => ({ email: locals.user?.email ?? null });
