import type {
  KyselyPlugin,
  PluginTransformQueryArgs,
  PluginTransformResultArgs,
  QueryResult,
  RootOperationNode,
  UnknownRow,
} from 'kysely';

/**
 * Database faults for tests, at the driver's edge: a statement whose raw text holds `match` fails
 * as a lost connection does, `times` times. `when: 'before'` fails it unsent (the server was
 * unreachable); `'after'` once it ran (the answer was lost: a COMMIT that happened, unheard). Use
 * it on a real database: `db.withPlugin(faults)`; Cairn's own code runs unchanged.
 */
export class Faults implements KyselyPlugin {
  readonly seen: string[] = [];
  private readonly failing = new WeakSet<object>();

  constructor(
    private readonly match: RegExp,
    private times: number,
    private readonly when: 'before' | 'after',
  ) {}

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    const node = args.node as { kind: string; sqlFragments?: readonly string[] };
    const text = node.kind === 'RawNode' ? (node.sqlFragments ?? []).join('?') : node.kind;
    if (this.times > 0 && this.match.test(text)) {
      this.times -= 1;
      this.seen.push(text);
      if (this.when === 'before') throw lostConnection();
      this.failing.add(args.queryId);
    }
    return args.node;
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    if (this.failing.has(args.queryId)) throw lostConnection();
    return args.result;
  }
}

function lostConnection(): Error {
  return Object.assign(new Error('Connection terminated unexpectedly'), { code: '08006' });
}
