import { type TObject, type TSchema, Type } from 'typebox';
import { Value } from 'typebox/value';
import type { Work } from '../events/work.ts';
import type { FieldError } from '../wire/errors.ts';
import type { Formation } from './schemas.ts';

export type Item = Record<string, unknown>;

export interface SectionOptions {
  /** Dictionaries: list internal ones too (DECISIONS §8: `includeInternal`). */
  includeInternal?: boolean;
}

/** Adds a problem found at publish, at its path in the formation (`programs.0.phases`). */
export type AddProblem = (path: string, message: string) => void;

/**
 * A section of the formation (DECISIONS §6), declared by what owns it: the platform (roles,
 * policies, the record types) or an area (`programs`, `webhooks`, ...) on its `Area`. The app
 * merges the declarations into the formation's shape: the schema a draft is checked against,
 * the read routes' section names, the checks made at publish, and the work publishing does.
 */
export interface FormationSection {
  /** The formation document's key. */
  key: string;
  /** Its value's schema; unknown keys inside are dropped when the draft is saved (DECISIONS §10). */
  schema: TSchema;
  /** The name `GET /formations/{version}/{route}` reads it by (DECISIONS §6), when it has one. */
  route?: string;
  /** The key naming one item (`GET /formations/{version}/{route}/{name}`); `name` by default. */
  itemKey?: string;
  /** The items the read routes show, when not just the document's (built-in defaults, filters). */
  items?(formation: Formation, options: SectionOptions): Item[];
  /** A section that is one object, read whole under this name; its items are its `fields`. */
  singleName?: string;
  /** The meaning checked at publish (unique names, references that resolve): each problem added. */
  problems?(formation: Formation, add: AddProblem): void;
  /** Work the publishing write does for the new version (webhooks registers the formation's subscriptions). */
  published?(w: Work, scope: { tenantId: string; instanceId: string }, formation: Formation): Promise<void>;
}

/** The merged sections: the draft's schema, the read routes' table, and the checks made at publish. */
export class FormationShape {
  readonly schema: TObject;
  private readonly byRoute = new Map<string, FormationSection>();

  constructor(readonly sections: readonly FormationSection[]) {
    const keys = new Set<string>();
    for (const section of sections) {
      if (keys.has(section.key)) throw new Error(`formation section ${section.key} is declared twice`);
      keys.add(section.key);
      if (section.route) {
        if (this.byRoute.has(section.route)) throw new Error(`formation route ${section.route} is declared twice`);
        this.byRoute.set(section.route, section);
      }
    }
    this.schema = Type.Object(Object.fromEntries(sections.map((section) => [section.key, Type.Optional(section.schema)])));
  }

  /** The read routes' section names. */
  get routes(): string[] {
    return [...this.byRoute.keys()];
  }

  /** The section a read route names (own names only: `constructor` is no section). */
  section(route: string): FormationSection | undefined {
    return this.byRoute.get(route);
  }

  /** The document with unknown keys dropped, at the top and inside items (DECISIONS §10). */
  clean(document: unknown): Formation {
    return Value.Clean(this.schema, structuredClone(document)) as Formation;
  }

  /** What is wrong with a document's shape (the CLI's check; a route's schema checks requests). */
  shapeProblems(document: unknown): FieldError[] {
    if (Value.Check(this.schema, document)) return [];
    return [...Value.Errors(this.schema, document)].map((error) => ({
      path: error.instancePath.split('/').filter(Boolean).join('.') || '(root)',
      message: error.message,
    }));
  }

  /** The rules a formation must meet to be published, every section's. */
  problems(formation: Formation): FieldError[] {
    const problems: FieldError[] = [];
    const add: AddProblem = (path, message) => problems.push({ path, message });
    for (const section of this.sections) section.problems?.(formation, add);
    return problems;
  }

  /** What a section read route answers: its items, or the one object of a single section. */
  body(formation: Formation, section: FormationSection, options: SectionOptions): Item[] | Item {
    const items = this.items(formation, section, options);
    return section.singleName ? { name: section.singleName, fields: items } : items;
  }

  items(formation: Formation, section: FormationSection, options: SectionOptions): Item[] {
    if (section.items) return section.items(formation, options);
    const value = (formation as Record<string, unknown>)[section.key];
    if (section.singleName) return ((value as { fields?: Item[] } | undefined)?.fields ?? []) as Item[];
    return (value ?? []) as Item[];
  }
}

/** Built-in items first, unless the formation redefines one by name. */
export function withDefaults(defaults: readonly Item[], own: readonly Item[] | undefined): Item[] {
  const ownNames = new Set((own ?? []).map((item) => item.name));
  return [...defaults.filter((item) => !ownNames.has(item.name)), ...(own ?? [])];
}
