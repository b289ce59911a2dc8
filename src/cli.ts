#!/usr/bin/env node
import { missingHeapFlags } from './cli/heap.ts';

/**
 * The `cairn` command (cli/main.ts). A process that is to serve by itself first takes the heap
 * settings every serving process runs with (cli/heap.ts): V8 reads them only at start, so it
 * replaces itself with one started with them (same pid, no second process), before it loads
 * anything else. Where `process.execve` is missing (Node 22 before 22.15), it starts as given.
 */
const flags = missingHeapFlags(process.argv.slice(2), process.execArgv, process.env);
if (flags && typeof process.execve === 'function') {
  process.execve(process.execPath, [process.execPath, ...process.execArgv, ...flags, ...process.argv.slice(1)], process.env);
}
await import('./cli/main.ts');
