/**
 * PostgreSQL's wire protocol numbers a statement's parameters in 16 bits, so one INSERT carries
 * at most 65,535 values. Multi-row inserts whose size a request decides go through here in
 * slices that stay under it (a 10,000-patient bulk edit writes 10,000 audit rows of 15 values).
 */
const MAX_PARAMETERS = 65_535;

export function parameterBatches<Row extends object>(rows: Row[]): Row[][] {
  if (rows.length === 0) return [];
  const valuesPerRow = Math.max(1, Object.keys(rows[0]!).length);
  const size = Math.floor(MAX_PARAMETERS / valuesPerRow);
  const batches: Row[][] = [];
  for (let start = 0; start < rows.length; start += size) batches.push(rows.slice(start, start + size));
  return batches;
}
