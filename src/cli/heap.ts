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
 * - How far the old space grows past its live objects before a full collection is V8's unless
 *   CAIRN_WORKER_HEAP_GROWTH says (issue 43, measured 2026-12-03). Streamed files are bytes outside
 *   V8's heap that count towards that limit: under the 256 MB cap V8 collects the whole heap 3-4
 *   times per 20 MB upload, and uploads ran at 0.36-0.52 of a bare Node server's. At 100 (a
 *   doubling) they ran at 0.89-0.98, downloads at 0.97-1.01, and a worker's peak under reads rose
 *   from 224-228 to 272-286 MB with no more reads a second: over the memory budget, so it is the
 *   operator's choice for file-heavy nodes, not the default.
 */
export function heapFlags(heapMb: number, growthPercent = 0): string[] {
  const flags = [`--max-old-space-size=${heapMb}`, '--max-semi-space-size=8'];
  return growthPercent > 0 ? [...flags, `--heap-growing-percent=${growthPercent}`] : flags;
}

const DEFAULT_HEAP_MB = 256;

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
  if (set.some((flag) => /^--max-(old|semi)-space-size/.test(flag))) return undefined;
  const heapMb = Number(env.CAIRN_WORKER_HEAP_MB ?? DEFAULT_HEAP_MB);
  const growth = Number(env.CAIRN_WORKER_HEAP_GROWTH ?? 0);
  // A bad value is the configuration's to refuse, with its message: start as given.
  if (!Number.isInteger(heapMb) || heapMb < 64 || !Number.isInteger(growth) || growth < 0) return undefined;
  return heapFlags(heapMb, growth);
}
