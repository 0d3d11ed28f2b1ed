import { integer, sqliteTable, text, type SQLiteColumnBuilderBase } from "drizzle-orm/sqlite-core";

/** The shape of `getSchema(options)` from `better-auth/db` that this file reads. */
export type BetterAuthSchema = Record<
  string,
  {
    fields: Record<
      string,
      {
        type: unknown;
        required?: boolean;
        unique?: boolean;
        index?: boolean;
        fieldName?: string;
        references?: { model: string; field: string; onDelete?: string };
      }
    >;
    order?: number | null;
  }
>;

/**
 * Turns Better Auth's own schema description into (1) drizzle tables for its drizzle adapter and (2) the DDL
 * its CLI would apply: the same columns, unique constraints and `index: true` indexes, so no index is missing
 * on its side. Dates are integer milliseconds and booleans integers, the drizzle-sqlite modes its CLI emits.
 */
export function betterAuthSqliteSchema(schema: BetterAuthSchema): {
  tables: Record<string, ReturnType<typeof sqliteTable>>;
  ddl: string[];
} {
  const tables: Record<string, ReturnType<typeof sqliteTable>> = {};
  const ddl: string[] = [];
  const models = Object.entries(schema).sort(([, a], [, b]) => (a.order ?? 99) - (b.order ?? 99));
  for (const [model, { fields }] of models) {
    const columns: Record<string, SQLiteColumnBuilderBase> = { id: text("id").primaryKey() };
    const sqlColumns = ['"id" text primary key not null'];
    const indexes: string[] = [];
    for (const [key, field] of Object.entries(fields)) {
      const name = field.fieldName ?? key;
      const type = field.type;
      let column: SQLiteColumnBuilderBase;
      let sqlType: string;
      if (type === "boolean") {
        column = integer(name, { mode: "boolean" });
        sqlType = "integer";
      } else if (type === "date") {
        column = integer(name, { mode: "timestamp_ms" });
        sqlType = "integer";
      } else if (type === "number") {
        column = integer(name);
        sqlType = "integer";
      } else {
        column = text(name);
        sqlType = "text";
      }
      columns[name] = column;
      let sqlColumn = `"${name}" ${sqlType}`;
      if (field.required) sqlColumn += " not null";
      if (field.unique) sqlColumn += " unique";
      if (field.references) {
        sqlColumn += ` references "${field.references.model}"("${field.references.field}")`;
        if (field.references.onDelete) sqlColumn += ` on delete ${field.references.onDelete}`;
      }
      sqlColumns.push(sqlColumn);
      if (field.index && !field.unique) indexes.push(`create index "${model}_${name}_idx" on "${model}" ("${name}")`);
    }
    tables[model] = sqliteTable(model, columns);
    ddl.push(`create table "${model}" (${sqlColumns.join(", ")})`, ...indexes);
  }
  return { tables, ddl };
}
