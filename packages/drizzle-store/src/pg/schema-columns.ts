import { timestamp } from "drizzle-orm/pg-core";

// Property names equal the record fields of `@latchkey/core`, so a selected row is already a record.
// Instants are timestamptz(3): JavaScript dates carry milliseconds, and nothing finer is ever written.
export const instant = (name: string) => timestamp(name, { precision: 3, withTimezone: true, mode: "date" });
