import type { Static } from 'typebox';
import type { Context } from '../../http/context.ts';
import { compareNames, programView } from '../programs/index.ts';
import type { CareTeamMember, PatientReadRow, PatientRow, TerritoryUser } from './read.ts';
import type { CareUser, Patient } from './schemas.ts';

/** A patient as the API returns it; custom attributes ride along as extra keys. */
export type PatientView = Static<typeof Patient>;

/**
 * Patients as API objects, from rows read with their relations (read.ts): no query here. Role
 * descriptions, region titles and program titles come from the current formation.
 */
export async function patientViews(ctx: Context, rows: PatientReadRow[]): Promise<PatientView[]> {
  if (rows.length === 0) return [];
  const { instance } = ctx;
  const formation = await ctx.formation();
  const roleDescriptions = new Map((formation.roles ?? []).map((role) => [role.name, role.description ?? role.title ?? null]));
  const summary = (user: CareTeamMember | TerritoryUser, pointOfContact: boolean): CareUser => ({
    id: user.id,
    username: user.username,
    firstName: user.first_name,
    lastName: user.last_name,
    email: user.email,
    roles: user.roles.map((role) => ({
      name: role.name,
      primaryRole: role.primary_role,
      description: roleDescriptions.get(role.name) ?? null,
      instanceId: instance.id,
    })),
    pointOfContact,
    enabled: user.enabled,
  });
  const regionTitles = new Map((formation.territories ?? []).map((region) => [region.name, region.title ?? null]));

  return rows.map((row) => {
    const team = row.care_team;
    const careTeam = team.map((member) => summary(member, member.point_of_contact));
    const territorialTeam = row.territorial_team
      .filter((user) => coversPatient(user, instance.name, row))
      .map((user) => summary(user, false));
    const programs = row.enrolments
      .map((enrolment) =>
        programView(
          { ...enrolment, created_at: new Date(enrolment.created_at), updated_at: new Date(enrolment.updated_at) } as never,
          formation,
        ),
      )
      .sort((a, b) => compareNames(a.programName, b.programName));
    return {
      // Custom attributes first, so they can never shadow a built-in field.
      ...(row.custom_attributes as Record<string, unknown>),
      id: row.id,
      externalGuid: row.external_guid,
      externalId: row.external_id,
      mrn: row.mrn,
      nric: row.nric,
      accessCode: row.access_code,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
      createdBy: row.created_by,
      updatedBy: row.updated_by,
      createdByName: row.created_by_name,
      updatedByName: row.updated_by_name,
      firstName: row.first_name,
      lastName: row.last_name,
      middleName: row.middle_name,
      // prod: a birth date is written as a date-time at midnight UTC.
      birthDate: row.birth_date ? `${row.birth_date}T00:00:00.000Z` : null,
      gender: row.gender,
      maritalStatus: row.marital_status,
      primaryLanguage: row.primary_language,
      secondaryLanguage: row.secondary_language,
      email: row.email,
      secondaryEmail: row.secondary_email,
      phone: row.phone,
      secondaryPhone: row.secondary_phone,
      phoneLabel: row.phone_label,
      secondaryPhoneLabel: row.secondary_phone_label,
      primaryPhoneCapabilities: row.primary_phone_capabilities,
      secondaryPhoneCapabilities: row.secondary_phone_capabilities,
      preferableInstancePhoneId: row.preferable_instance_phone_id,
      country: row.country,
      state: row.state,
      city: row.city,
      zip: row.zip,
      addressLine1: row.address_line1,
      addressLine2: row.address_line2,
      timezone: row.timezone,
      patientType: row.patient_type,
      notes: row.notes,
      patientTerritories: row.patient_territories,
      careTeamMembers: team.map((member) => ({ id: member.id, pointOfContact: member.point_of_contact })),
      careTeam,
      territorialTeam,
      patientPrograms: programs,
      cadence: row.cadence as PatientView['cadence'],
      patientRegion: row.patient_region,
      patientRegionTitle: row.patient_region ? (regionTitles.get(row.patient_region) ?? null) : null,
      patientTerritory: row.patient_territory,
      pointOfContact: careTeam.find((member) => member.pointOfContact) ?? null,
    };
  });
}

/**
 * A user is on a patient's territorial team when one of the user's entries for this instance
 * names a region of the patient and either covers the whole region or shares a territory.
 */
function coversPatient(user: TerritoryUser, instanceName: string, patient: PatientRow): boolean {
  return user.territories.some(
    (entry) =>
      entry.instanceName === instanceName &&
      patient.regions.includes(entry.name) &&
      (entry.territories.length === 0 || entry.territories.some((territory) => patient.territories.includes(territory))),
  );
}
