import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifySchemaCompiler, FastifySerializerCompiler } from 'fastify';
import type { TSchema } from 'typebox';

type SerializerFactory = ReturnType<typeof SerializerSelector>;

/**
 * Each route's validators and serializers, compiled when the route first needs them rather than
 * at start-up. A process spends most of its time on a few of its hundreds of routes, and compiling
 * every schema up front held ~11 MB of each worker's heap (heap after start-up 61 → 47 MB measured,
 * about 4 of it validators and 7 serializers), which every worker carried for routes it may never
 * serve. The first request of a route pays its compile (a few milliseconds) once per process.
 *
 * A schema that cannot compile is then found at its route's first request, not at start-up, so
 * `compileAll` compiles whatever is still pending: schema-compilation.test.ts calls it on the whole app.
 */
export class SchemaCompilation {
  readonly #pending = new Set<() => unknown>();

  /** `compile`'s function, built at its first call (or by `compileAll`). */
  onFirstUse<F extends (...args: never[]) => unknown>(compile: () => F): F {
    let compiled: F | undefined;
    const build = () => {
      compiled ??= compile();
      this.#pending.delete(build);
      return compiled;
    };
    this.#pending.add(build);
    return ((...args: Parameters<F>) => (compiled ?? build())(...args)) as F;
  }

  /** Compiles every schema not yet compiled; a schema that cannot compile throws here. */
  compileAll(): number {
    const pending = [...this.#pending];
    for (const build of pending) build();
    return pending.length;
  }

  /** Wraps a route-schema validator compiler (Fastify's setValidatorCompiler). */
  validators(compile: FastifySchemaCompiler<TSchema>): FastifySchemaCompiler<TSchema> {
    return (route) => this.onFirstUse(() => compile(route));
  }

  /** Fastify's own serializer factory (fast-json-stringify), each route's serializer built on first use. */
  serializers(): SerializerFactory {
    const factory = SerializerSelector();
    return (externalSchemas, options) => {
      const compile: FastifySerializerCompiler<unknown> = factory(externalSchemas, options) as never;
      return ((route: Parameters<FastifySerializerCompiler<unknown>>[0]) =>
        this.onFirstUse(() => compile(route))) as ReturnType<SerializerFactory>;
    };
  }
}
