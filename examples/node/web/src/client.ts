import { createLatchkeyClient } from "@latchkey/client";

/** The one client every page uses (cookie mode: the browser carries the session). */
export const auth = createLatchkeyClient({ baseURL: "/auth" });
