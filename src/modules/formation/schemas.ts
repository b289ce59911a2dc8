import { type Static, Type } from 'typebox';
import { DateTime, E164, Nullable, Uuid } from '../../http/schemas.ts';
import { fieldTypes } from './field-types.ts';

/** Formation names: lower-case letters, digits, hyphen and underscore (001, dictionaries). */
const Name = Type.String({ minLength: 1, maxLength: 100 });
const Title = Type.Optional(Type.String({ maxLength: 255 }));

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

export const PatientAttribute = Type.Object(
  {
    name: Name,
    title: Title,
    type: Type.Optional(Type.Enum(fieldTypes)),
    required: Type.Optional(Type.Boolean()),
    options: Type.Optional(Type.Array(Type.String())),
    multiple: Type.Optional(Type.Boolean()),
  },
  {
    description:
      'A custom top-level patient property (with `type`), or a designer rule on a built-in patient field (its name, with `required`).',
  },
);

export const InstancePhone = Type.Object({
  id: Uuid,
  number: E164,
  default: Type.Optional(Type.Boolean()),
  label: Type.Optional(Type.String({ maxLength: 100 })),
});

/** The sections a formation can hold; each is optional and defaults to empty. */
export const FormationDocument = Type.Object(
  {
    territories: Type.Optional(Type.Array(Territory)),
    securityPolicies: Type.Optional(Type.Array(SecurityPolicy)),
    roles: Type.Optional(Type.Array(Role)),
    patientAttributes: Type.Optional(Type.Array(PatientAttribute)),
    instancePhones: Type.Optional(Type.Array(InstancePhone)),
  },
  { additionalProperties: false },
);

export type Formation = Static<typeof FormationDocument>;

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

export const FormationWithInfo = Type.Intersect([FormationVersionInfo, Type.Object({ formation: FormationDocument })]);
