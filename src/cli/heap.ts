/**
 * The V8 heap settings of every process that serves (cli/serve.ts gives them to each `serve
 * --workers` worker; src/cli.ts restarts a single `cairn serve` with them). V8 reads them only at
 * start.
 *
 * - The old space is capped at CAIRN_WORKER_HEAP_MB: V8 sizes it from the machine's memory
 *   (4 GB here) and grows it lazily, and a limit makes it collect sooner. Measured under load: a
 *   worker's peak memory fell from ~250 MB to ~150 MB, same speed.
 * - The young generation's semi-space is capped at 8 MB. Node 24's V8 (13.6) makes it 64 MB by
 *   default (Node 22's, 16 MB), and a busy process fills it: uncapped, a worker started at ~245 MB
 *   and peaked at ~315 MB, against ~165 and ~205 MB capped (get, search and create at 10
 *   connections); a single process on V8's defaults idled near 300 MB and peaked at 430-580 MB.
 *   The cost is collection: scavenges took 17-20% of a worker's CPU at 8 MB, ~13% at 64 MB, which
 *   req/s did not show beyond the runs' noise. 16 MB halves the scavenges for ~20 MB more; 4 MB
 *   saves ~10 MB at idle and nothing at the peak.
 * - The old space is collected whole no sooner than at CAIRN_WORKER_HEAP_FLOOR_MB (V8's
 *   --initial-old-space-size: the allocation limit V8 does not shrink below; issue 43, measured
 *   2026-12-03). Left to itself under the 256 MB cap, V8 sets the limit at ~1.4× the live objects
 *   (56 MB live: 80 MB) and began marking again right after each collection, with 24 MB of room
 *   left: while a file streamed, a process marked its whole heap every ~100 ms (31
 *   full collections in a 5-upload bench run) and uploads ran at 0.55-0.62 of a bare Node
 *   server's. At 96 MB: 14-15 collections, uploads at 0.86-0.96; at 128, 0.91-0.92. A worker's
 *   peak under get, search and create (2 workers, 100,000 patients) rose from 158 to 180-186 MB
 *   (221 at 128). The floor bounds that cost in MB, where a growth percent (--heap-growing-percent
 *   at 100: 0.89-0.98 up, +50 MB peak) scales it with the heap.
 */
export function heapFlags(heapMb: number, floorMb = 0): string[] {
  const flags = [`--max-old-space-size=${heapMb}`, '--max-semi-space-size=8'];
  return floorMb > 0 ? [...flags, `--initial-old-space-size=${floorMb}`] : flags;
}

const DEFAULT_HEAP_MB = 256;
const DEFAULT_FLOOR_MB = 96;

/**
 * The flags a `cairn` process started with `argv` should restart with, or none: only a process
 * that will serve by itself (`serve` without `--workers` above 1), and only when neither its
 * command line nor NODE_OPTIONS sets the heap already (an operator's own choice wins).
 */
export function missingHeapFlags(
  argv: readonly string[],
  execArgv: readonly string[],
  env: NodeJS.ProcessEnv,
): string[] | undefined {
  if (argv[0] !== 'serve') return undefined;
  const workers = argv.findIndex((arg) => arg === '--workers' || arg.startsWith('--workers='));
  const count = workers < 0 ? '1' : argv[workers]!.includes('=') ? argv[workers]!.split('=')[1] : argv[workers + 1];
  if (Number(count) > 1) return undefined;
  const set = [...execArgv, ...(env.NODE_OPTIONS ?? '').split(/\s+/)];
  if (set.some((flag) => /^--(max-old|max-semi|initial-old)-space-size/.test(flag))) return undefined;
  const heapMb = Number(env.CAIRN_WORKER_HEAP_MB ?? DEFAULT_HEAP_MB);
  const floorMb = Number(env.CAIRN_WORKER_HEAP_FLOOR_MB ?? DEFAULT_FLOOR_MB);
  // A bad value is the configuration's to refuse, with its message: start as given.
  if (!Number.isInteger(heapMb) || heapMb < 64 || !Number.isInteger(floorMb) || floorMb < 0 || floorMb >= heapMb)
    return undefined;
  return heapFlags(heapMb, floorMb);
}
