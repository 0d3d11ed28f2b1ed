/** Which unique user field a failed write collided with. */
export type UserConflict = "email" | "username";

/** The driver error inside whatever wraps it (drizzle wraps every failed query in `DrizzleQueryError`). */
export function* errorChain(error: unknown): Generator<object> {
  let current: unknown = error;
  for (let depth = 0; depth < 8 && typeof current === "object" && current !== null; depth++) {
    yield current;
    current = (current as { cause?: unknown }).cause;
  }
}

/** Reads a string property of an unknown error object. */
export function stringField(error: object, field: string): string | undefined {
  const value = (error as Record<string, unknown>)[field];
  return typeof value === "string" ? value : undefined;
}
