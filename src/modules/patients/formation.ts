import { type Static, Type } from 'typebox';
import { fieldTypes } from '../../formation/field-types.ts';
import { builtInPatientFields, reservedTopLevelNames } from '../../formation/patient-fields.ts';
import { Name, Title } from '../../formation/schemas.ts';
import type { FormationSection } from '../../formation/sections.ts';
import { uniqueNames } from '../../formation/validate.ts';

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

declare module '../../formation/schemas.ts' {
  interface FormationSections {
    patientAttributes?: Static<typeof PatientAttribute>[];
  }
}

/**
 * DECISIONS §6 `patientAttributes`: the tenant's custom top-level patient properties, and the
 * designer's rules on built-in fields. Custom names cannot shadow a built-in field or the list
 * keys clients unwrap (DECISIONS §10).
 */
export const patientAttributesSection: FormationSection = {
  key: 'patientAttributes',
  route: 'patient-attributes',
  schema: Type.Array(PatientAttribute),
  problems(formation, add) {
    uniqueNames(formation.patientAttributes ?? [], 'patientAttributes', add);
    for (const [index, attribute] of (formation.patientAttributes ?? []).entries()) {
      const path = `patientAttributes.${index}`;
      if (builtInPatientFields.has(attribute.name)) {
        if (attribute.type) add(`${path}.type`, `"${attribute.name}" is a built-in field; only "required" applies`);
        continue;
      }
      if (reservedTopLevelNames.has(attribute.name)) {
        add(`${path}.name`, `"${attribute.name}" is reserved`);
        continue;
      }
      if (!/^[A-Za-z][A-Za-z0-9_-]*$/.test(attribute.name)) add(`${path}.name`, 'must start with a letter');
      if (!attribute.type) add(`${path}.type`, 'a custom attribute needs a type');
      if (attribute.type === 'select' && !(attribute.options && attribute.options.length > 0)) {
        add(`${path}.options`, 'a select attribute needs options');
      }
    }
  },
};
