import { customType, integer, sqliteTable, text, type SQLiteColumnBuilderBase } from "drizzle-orm/sqlite-core";

/** The shape of `getSchema(options)` from `better-auth/db` that this file reads. */
export type BetterAuthSchema = Record<
  string,
  {
    fields: Record<
      string,
      {
        type: unknown;
        fieldName?: string;
      }
    >;
  }
>;

/** A date as Better Auth's Kysely adapter stores it on SQLite (no native dates there): ISO 8601 text. */
const isoDate = customType<{ data: Date; driverData: string }>({
  dataType: () => "date",
  toDriver: (value) => value.toISOString(),
  fromDriver: (value) => new Date(value),
});

/**
 * Turns Better Auth's own schema description into drizzle tables with the columns its migrations create on SQLite,
 * each value encoded as its Kysely adapter writes it (dates as ISO text, booleans 0/1): the scale seed writes Better
 * Auth's rows through these, so what lands on disk is what Better Auth itself would have written.
 */
export function betterAuthSqliteSchema(schema: BetterAuthSchema): {
  tables: Record<string, ReturnType<typeof sqliteTable>>;
} {
  const tables: Record<string, ReturnType<typeof sqliteTable>> = {};
  for (const [model, { fields }] of Object.entries(schema)) {
    const columns: Record<string, SQLiteColumnBuilderBase> = { id: text("id").primaryKey() };
    for (const [key, field] of Object.entries(fields)) {
      const name = field.fieldName ?? key;
      const type = field.type;
      columns[name] =
        type === "boolean"
          ? integer(name, { mode: "boolean" })
          : type === "date"
            ? isoDate(name)
            : type === "number"
              ? integer(name)
              : text(name);
    }
    tables[model] = sqliteTable(model, columns);
  }
  return { tables };
}
