import assert from 'node:assert/strict';
import { test } from 'node:test';
import { missingHeapFlags } from './heap.ts';

test('a single cairn serve restarts with the heap settings: the cap, the young generation and the floor, unless it is 0', () => {
  assert.deepEqual(missingHeapFlags(['serve'], [], {}), [
    '--max-old-space-size=256',
    '--max-semi-space-size=8',
    '--initial-old-space-size=96',
  ]);
  assert.deepEqual(missingHeapFlags(['serve'], [], { CAIRN_WORKER_HEAP_MB: '512', CAIRN_WORKER_HEAP_FLOOR_MB: '0' }), [
    '--max-old-space-size=512',
    '--max-semi-space-size=8',
  ]);
  // An operator's own heap flags win, a cluster's workers get theirs from serve.ts, other commands none.
  assert.equal(missingHeapFlags(['serve'], ['--max-old-space-size=1024'], {}), undefined);
  assert.equal(missingHeapFlags(['serve', '--workers', '2'], [], {}), undefined);
  assert.equal(missingHeapFlags(['migrate'], [], {}), undefined);
  // A bad value is the configuration's to refuse, with its message.
  assert.equal(missingHeapFlags(['serve'], [], { CAIRN_WORKER_HEAP_FLOOR_MB: 'lots' }), undefined);
  assert.equal(missingHeapFlags(['serve'], [], { CAIRN_WORKER_HEAP_FLOOR_MB: '256' }), undefined);
});
