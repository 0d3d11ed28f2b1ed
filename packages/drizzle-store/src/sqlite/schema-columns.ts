import { integer, text } from "drizzle-orm/sqlite-core";

// Property names equal the record fields of `@latchkey/core`, so a selected row is already a record.
// Instants are INTEGER epoch milliseconds: exact, sortable, and plain arithmetic in SQL.
export const instant = (name: string) => integer(name, { mode: "timestamp_ms" });
export const flag = (name: string) => integer(name, { mode: "boolean" });
export const jsonText = <T>(name: string) => text(name, { mode: "json" }).$type<T>();
