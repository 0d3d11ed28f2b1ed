import { AuthError } from "@latchkey/core";

/** How often `consumeUse` runs its UPDATE when the row keeps changing under it (only a concurrent update() can). */
export const CONSUME_ATTEMPTS = 3;

/** The key changed between every UPDATE and the read that followed it; no honest answer is left. */
export function unstableKeyError(id: string): AuthError {
  return new AuthError("INTERNAL_ERROR", `API key ${id} changed during each of ${CONSUME_ATTEMPTS} use attempts`);
}
