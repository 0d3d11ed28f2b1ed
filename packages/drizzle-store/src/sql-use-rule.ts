import {
  apiKeyUseRule,
  type ApiKeyUseRule,
  type UseRuleNumField,
  type UseRuleTimeField,
} from "@latchkey/core/internal";
import { sql, type Column, type SQL } from "drizzle-orm";

/** SQL has one representation for booleans, numbers and instants: a fragment. */
interface SqlRepr {
  bool: SQL;
  num: SQL;
  time: SQL;
}

/** What differs between the SQL dialects: the bound instant of the use, and instant arithmetic. */
export interface SqlUseRuleDialect {
  /** The use's instant as a placeholder bound per call (`at`). */
  now: SQL;
  addMs(instant: SQL, ms: SQL): SQL;
}

/**
 * Core's API-key use rule (`apiKeyUseRule`) as drizzle `sql` fragments over the `columns` of one table: the
 * store runs `allowed` as the WHERE and `set` as the SET of one UPDATE ... RETURNING.
 *
 * @example
 * const rule = sqlApiKeyUseRule(apiKeys, { now: sql.placeholder("at"), addMs: (t, ms) => sql`(${t} + ${ms})` });
 */
export function sqlApiKeyUseRule(
  columns: Record<UseRuleNumField | UseRuleTimeField | "enabled", Column>,
  dialect: SqlUseRuleDialect,
): ApiKeyUseRule<SqlRepr> {
  const join = (terms: SQL[], op: string) => sql`(${sql.join(terms, sql.raw(` ${op} `))})`;
  return apiKeyUseRule<SqlRepr>({
    num: (name) => sql`${columns[name]}`,
    time: (name) => sql`${columns[name]}`,
    enabled: () => sql`(${columns.enabled} = true)`,
    now: () => dialect.now,
    // Only the rule's own constants reach here; inlined so the database types them as integers.
    int: (value) => {
      if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`not a small integer: ${value}`);
      return sql.raw(String(value));
    },
    isNull: (value) => sql`(${value} is null)`,
    and: (...terms) => join(terms, "and"),
    or: (...terms) => join(terms, "or"),
    not: (term) => sql`(not ${term})`,
    lte: (left, right) => sql`(${left} <= ${right})`,
    lt: (left, right) => sql`(${left} < ${right})`,
    add: (left, right) => sql`(${left} + ${right})`,
    sub: (left, right) => sql`(${left} - ${right})`,
    addMs: (instant, ms) => dialect.addMs(instant, ms),
    coalesce: <T extends SQL>(value: T, fallback: T) => sql`coalesce(${value}, ${fallback})` as T,
    when: <T extends SQL>(test: SQL, then: T, otherwise: T) =>
      sql`(case when ${test} then ${then} else ${otherwise} end)` as T,
  });
}
