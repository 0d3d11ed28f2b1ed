/**
 * What a server log gets for an unexpected error: names and first message lines along the cause chain.
 * Query parameters (password hashes, token hashes) that drivers append to messages never reach the log.
 *
 * @example
 * import { describeError } from "@latchkey/core";
 * console.error(`[app] ${describeError(error)}`);
 */
export function describeError(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current !== undefined && current !== null && depth < 5; depth++) {
    if (current instanceof Error) {
      const firstLine = current.message
        .split("\n")[0]!
        .replace(/\bparams:.*$/i, "")
        .slice(0, 300);
      parts.push(`${current.name}: ${firstLine}`);
      current = current.cause;
    } else {
      parts.push(typeof current);
      break;
    }
  }
  return parts.join(" <- ");
}
