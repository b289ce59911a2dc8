import { type Kysely, sql } from 'kysely';

/**
 * Cairn's tables as the database's catalog describes them, for the commands that copy a whole
 * installation (backup, restore, copy). Read from the catalog rather than listed, so a table an
 * area adds next year is copied the day its migration makes it.
 */
export interface TableShape {
  name: string;
  /** The columns a row is written with: all but generated ones. */
  columns: string[];
  /** The primary key's columns in order, with their types: rows are read in this order, in pages after the last key read. */
  key: { name: string; type: string }[];
  /** Identity columns (`events.seq`): their values are kept, and their sequences moved past them afterwards. */
  identity: string[];
  /** A foreign key of the table names the table itself: its rows must go in one after another, in key order. */
  selfReferencing: boolean;
  /** Partitioned (its rows are its partitions'): `COPY … TO` reads it only through a query. */
  partitioned: boolean;
}

/**
 * Not copied: the migrator's own tables (the target is migrated, not filled), the file store's
 * holds, which belong to the running installation (files/holds.ts), and a copy's mark (copy.ts).
 */
const NOT_COPIED = new Set(['cairn_migrations', 'cairn_migrations_lock', 'blob_holds', 'cairn_copy']);

interface ColumnRow {
  table: string;
  column: string;
  type: string;
  generated: boolean;
  identity: boolean;
  key_position: number | null;
  partitioned: boolean;
}

/**
 * Every table of the current schema, each after the tables its foreign keys point to, so rows
 * are written parents first (a self-reference does not order anything).
 */
export async function tableShapes<DB>(db: Kysely<DB>): Promise<TableShape[]> {
  const { rows } = await sql<ColumnRow>`
    SELECT c.relname AS table, a.attname AS column, format_type(a.atttypid, a.atttypmod) AS type,
           a.attgenerated <> '' AS generated, a.attidentity <> '' AS identity,
           array_position(i.indkey::int2[], a.attnum) AS key_position, c.relkind = 'p' AS partitioned
      FROM pg_class c
      JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = current_schema()
      JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
      LEFT JOIN pg_index i ON i.indrelid = c.oid AND i.indisprimary
     WHERE c.relkind IN ('r', 'p') AND NOT c.relispartition
     ORDER BY c.relname, a.attnum`.execute(db);
  const shapes = new Map<string, TableShape & { keyAt: Map<number, { name: string; type: string }> }>();
  for (const row of rows) {
    if (NOT_COPIED.has(row.table)) continue;
    let shape = shapes.get(row.table);
    if (!shape) {
      shape = {
        name: row.table,
        columns: [],
        key: [],
        identity: [],
        selfReferencing: false,
        partitioned: row.partitioned,
        keyAt: new Map(),
      };
      shapes.set(row.table, shape);
    }
    if (!row.generated) shape.columns.push(row.column);
    if (row.identity) shape.identity.push(row.column);
    if (row.key_position !== null) shape.keyAt.set(row.key_position, { name: row.column, type: row.type });
  }
  for (const shape of shapes.values()) {
    shape.key = [...shape.keyAt.entries()].sort(([a], [b]) => a - b).map(([, key]) => key);
    if (shape.key.length === 0) throw new Error(`table ${shape.name} has no primary key: it cannot be copied in pages`);
  }
  const { rows: references } = await sql<{ table: string; parent: string }>`
    SELECT c.relname AS table, p.relname AS parent
      FROM pg_constraint f
      JOIN pg_class c ON c.oid = f.conrelid
      JOIN pg_class p ON p.oid = f.confrelid
      JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = current_schema()
     WHERE f.contype = 'f'`.execute(db);
  for (const reference of references) {
    const shape = shapes.get(reference.table);
    if (shape && reference.table === reference.parent) shape.selfReferencing = true;
  }
  return parentsFirst(
    [...shapes.values()].map(({ keyAt: _, ...shape }) => shape),
    references,
  );
}

function parentsFirst(shapes: TableShape[], references: { table: string; parent: string }[]): TableShape[] {
  const byName = new Map(shapes.map((shape) => [shape.name, shape]));
  const ordered: TableShape[] = [];
  const placed = new Set<string>();
  const place = (name: string, path: string[]) => {
    if (placed.has(name) || !byName.has(name)) return;
    if (path.includes(name)) throw new Error(`foreign keys form a cycle: ${[...path, name].join(' → ')}`);
    for (const reference of references)
      if (reference.table === name && reference.parent !== name) place(reference.parent, [...path, name]);
    placed.add(name);
    ordered.push(byName.get(name)!);
  };
  for (const shape of [...shapes].sort((a, b) => a.name.localeCompare(b.name))) place(shape.name, []);
  return ordered;
}

/** A table's name quoted for a statement's text (names come from the catalog, never from input). */
export function quoted(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
