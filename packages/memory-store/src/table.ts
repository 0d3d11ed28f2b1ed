/** What a row is filed under in one index: a key, or null to leave the row out of that index. */
type IndexKey<V> = (row: V) => string | null;

/**
 * A table: rows by id (a `Map`), plus secondary indexes that are a function of the rows (each row filed under one key
 * per index, several rows per key allowed). Every `set` and `delete` maintains them, so they can never disagree with
 * the rows: a transaction's undo log (undo-log.ts) restores rows through `set` and `delete` too, and the indexes
 * follow. A lookup through an index visits only the rows filed under its key, whatever the size of the table.
 */
export class Table<V, I extends string = never> extends Map<string, V> {
  private readonly filing: ReadonlyArray<readonly [I, IndexKey<V>]>;
  private readonly indexes = new Map<I, Map<string, Set<string>>>();
  private readonly unique: ReadonlyArray<readonly [I, IndexKey<V>]>;

  /**
   * `unique`: the indexes that hold at most one row per key in the SQL stores (a verification's identifier). The
   * ports keep them so; `restorable` tells a transaction's undo whether putting a row back would break that.
   */
  constructor(keys: Readonly<Record<I, IndexKey<V>>>, unique: readonly NoInfer<I>[] = []) {
    super();
    this.filing = Object.entries(keys) as [I, IndexKey<V>][];
    for (const [name] of this.filing) this.indexes.set(name, new Map());
    this.unique = this.filing.filter(([name]) => unique.includes(name));
  }

  /**
   * Whether `row` can go back under `id` without a second row on a unique key: false when another row holds one
   * of its unique keys now (a newer one another request wrote while a transaction that removed `row` was open).
   */
  restorable(id: string, row: V): boolean {
    for (const [name, keyOf] of this.unique) {
      const key = keyOf(row);
      const ids = key === null ? undefined : this.indexes.get(name)!.get(key);
      if (ids) for (const other of ids) if (other !== id) return false;
    }
    return true;
  }

  override set(id: string, row: V): this {
    const before = super.get(id);
    for (const [name, keyOf] of this.filing) {
      const key = keyOf(row);
      if (before !== undefined) {
        const previous = keyOf(before);
        if (previous === key) continue; // filed under the same key already
        if (previous !== null) this.unfile(name, previous, id);
      }
      if (key !== null) this.file(name, key, id);
    }
    return super.set(id, row);
  }

  override delete(id: string): boolean {
    const before = super.get(id);
    if (before === undefined) return false;
    for (const [name, keyOf] of this.filing) {
      const key = keyOf(before);
      if (key !== null) this.unfile(name, key, id);
    }
    return super.delete(id);
  }

  override clear(): void {
    super.clear();
    for (const index of this.indexes.values()) index.clear();
  }

  /** The rows filed under `key` in `index`, oldest filing first; a fresh array (safe to delete while walking it). */
  rowsBy(index: I, key: string): V[] {
    const ids = this.indexes.get(index)!.get(key);
    if (!ids) return [];
    const rows: V[] = [];
    for (const id of ids) rows.push(super.get(id)!);
    return rows;
  }

  /** The first row filed under `key` in `index`, or undefined. */
  firstBy(index: I, key: string): V | undefined {
    const ids = this.indexes.get(index)!.get(key);
    if (!ids) return undefined;
    for (const id of ids) return super.get(id);
    return undefined;
  }

  /** Every key of `index` with the ids filed under it: for tests that check the indexes against the rows. */
  indexEntries(index: I): Map<string, ReadonlySet<string>> {
    return new Map([...this.indexes.get(index)!].map(([key, ids]) => [key, new Set(ids)]));
  }

  private file(index: I, key: string, id: string): void {
    const byKey = this.indexes.get(index)!;
    const ids = byKey.get(key);
    if (ids) ids.add(id);
    else byKey.set(key, new Set([id]));
  }

  private unfile(index: I, key: string, id: string): void {
    const byKey = this.indexes.get(index)!;
    const ids = byKey.get(key);
    if (!ids) return;
    ids.delete(id);
    if (ids.size === 0) byKey.delete(key);
  }
}
