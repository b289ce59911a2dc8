import { type Static, Type } from 'typebox';
import { DateTime, E164, JsonObject, Nullable, Uuid } from '../wire/schemas.ts';
import { CdtFhir } from './cdt-fhir.ts';
import { fieldTypes } from './field-types.ts';

/** An item's name in a formation section, and its title (every section's items have them). */
export const Name = Type.String({ minLength: 1, maxLength: 100 });
export const Title = Type.Optional(Type.String({ maxLength: 255 }));

export const Territory = Type.Object({
  name: Name,
  title: Title,
  territories: Type.Array(Type.String({ minLength: 1, maxLength: 100 })),
});

export const SecurityPolicy = Type.Object({
  name: Name,
  title: Title,
  permissions: Type.Array(Type.String()),
});

export const Role = Type.Object({
  name: Name,
  title: Title,
  description: Type.Optional(Type.String({ maxLength: 1000 })),
  policies: Type.Array(Type.String()),
});

/** What an instance phone may be used for; a patient's phone capabilities (001) name the same channels. */
export const phoneCapabilities = ['SMS', 'VOICE_CALL', 'FAX'] as const;
export type PhoneCapability = (typeof phoneCapabilities)[number];

export const InstancePhone = Type.Object(
  {
    id: Uuid,
    number: E164,
    default: Type.Optional(Type.Boolean({ description: 'The phone a channel uses when a request names none (one at most)' })),
    label: Type.Optional(Type.String({ maxLength: 100 })),
    capabilities: Type.Optional(
      Type.Array(Type.Enum(phoneCapabilities), {
        maxItems: phoneCapabilities.length,
        description:
          'The channels the number sends on: SMS, VOICE_CALL, FAX. Absent means every channel (formations written before it stay valid); [] means none. An SMS or a call goes only from a phone with SMS or VOICE_CALL, a fax only from one with FAX.',
      }),
    ),
  },
  {
    description:
      "A number the instance sends from. `capabilities` says on which channels; a fax draft's sender must be the number of a FAX phone, a communication's instancePhoneId an SMS or VOICE_CALL phone.",
  },
);

/** A field of a PDT, CDT or dictionary. Types are those of field-types.ts, in either case. */
export const FieldDefinition = Type.Object({
  name: Name,
  title: Title,
  type: Type.Enum([...fieldTypes, ...fieldTypes.map((type) => type.toUpperCase())]),
  required: Type.Optional(Type.Boolean()),
  options: Type.Optional(Type.Array(Type.String())),
  multiple: Type.Optional(Type.Boolean()),
});

export const Pdt = Type.Object({
  name: Name,
  title: Title,
  contactable: Type.Optional(Type.Boolean({ description: 'Records of this type can back a patient contact' })),
  fields: Type.Array(FieldDefinition),
});

export const Cdt = Type.Object({
  name: Name,
  title: Title,
  type: Type.Optional(Type.Enum(['MULTI_RECORD', 'SINGLE_RECORD'] as const)),
  fields: Type.Array(FieldDefinition),
  fhir: Type.Optional(CdtFhir),
});

export const Dictionary = Type.Object({
  name: Type.String({ pattern: '^[a-z0-9_-]+$', maxLength: 100 }),
  title: Title,
  internal: Type.Optional(Type.Boolean()),
  fields: Type.Array(FieldDefinition, { minItems: 1 }),
});

/**
 * The platform's own sections of the formation (DECISIONS §6): callers' access, the record types
 * and reference data. Areas declare theirs beside their code (`Area.formation`), adding their
 * types to `FormationSections`; the app merges every section into the shape a draft is checked
 * against (formation/sections.ts). Each is optional and defaults to empty.
 */
export const PlatformFormation = Type.Object({
  territories: Type.Optional(Type.Array(Territory)),
  securityPolicies: Type.Optional(Type.Array(SecurityPolicy)),
  roles: Type.Optional(Type.Array(Role)),
  instancePhones: Type.Optional(Type.Array(InstancePhone)),
  pdts: Type.Optional(Type.Array(Pdt)),
  cdts: Type.Optional(Type.Array(Cdt)),
  dictionaries: Type.Optional(Type.Array(Dictionary)),
  messageTemplates: Type.Optional(Type.Array(JsonObject)),
});

/**
 * The areas' sections, by key and type: each area adds its own with
 * `declare module '.../formation/schemas.ts' { interface FormationSections { programs?: ...[] } }`.
 */
// biome-ignore lint/suspicious/noEmptyInterface: areas merge their sections into it.
export interface FormationSections {}

export type FieldDefinitionInput = Static<typeof FieldDefinition>;
export type PdtDefinition = Static<typeof Pdt>;
export type CdtDefinition = Static<typeof Cdt>;
export type DictionaryDefinition = Static<typeof Dictionary>;

/** A formation document: the platform's sections and every area's. */
export type Formation = Static<typeof PlatformFormation> & FormationSections;

export const FormationVersionParam = Type.String({
  pattern: '^(current|draft|-1|[1-9][0-9]{0,8})$',
  description: 'A published version number, `current`, or `draft` (also written -1).',
});

export const FormationVersionInfo = Type.Object({
  version: Type.Integer({ description: '-1 is the draft' }),
  status: Type.Union([Type.Literal('DRAFT'), Type.Literal('PUBLISHED'), Type.Literal('CURRENT')]),
  createdAt: DateTime,
  updatedAt: DateTime,
  publishedAt: Nullable(DateTime),
  publishedByName: Nullable(Type.String()),
});
