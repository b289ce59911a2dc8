import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type {
  FastifyBaseLogger,
  FastifyInstance,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import type { ExportSource } from './export.ts';
import type { FhirResource } from './fhir.ts';
import type { Services } from './services.ts';

/** The Fastify instance every area registers its routes on, typed by its TypeBox schemas. */
export type Api = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

export interface AreaOptions {
  services: Services;
  /** What the areas offer the bulk export, by resource name (PATIENT): the export area serves them. */
  exports: ReadonlyMap<string, ExportSource>;
  /** The FHIR resources the areas' records are, by type (Patient; Communication from chat, SMS and email): the fhir area serves them. */
  fhir: ReadonlyMap<string, readonly FhirResource[]>;
}

/** An area's routes: one plugin per folder under src/modules, registered in src/app.ts. */
export type AreaPlugin = (app: Api, options: AreaOptions) => Promise<void>;
