import assert from 'node:assert/strict';
import { test } from 'node:test';
import { validate, version } from 'uuid';
import { uuidv7 } from './ids.ts';

test('ids are version 7 UUIDs, unique and in the order they were made, within a millisecond too', () => {
  // More than one pool of random bytes (256 ids), many to a millisecond.
  const ids = Array.from({ length: 5_000 }, () => uuidv7());
  for (const id of ids) assert.ok(validate(id) && version(id) === 7, id);
  assert.equal(new Set(ids).size, ids.length);
  assert.deepEqual([...ids].sort(), ids);
  // The first 48 bits are the millisecond it was made.
  const made = Number.parseInt(ids.at(-1)!.replaceAll('-', '').slice(0, 12), 16);
  assert.ok(Math.abs(made - Date.now()) < 1_000);
});
