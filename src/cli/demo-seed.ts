import { type Context, systemContext } from '../http/context.ts';
import type { Services } from '../http/services.ts';
import { createCalendarEvent, createWorkHours } from '../modules/calendar/index.ts';
import { createRecord } from '../modules/cdts/index.ts';
import { createEncounter } from '../modules/encounters/index.ts';
import { createPatient } from '../modules/patients/index.ts';
import { saveUser, setPassword } from '../modules/users/index.ts';
import { demoInstanceOf } from './bootstrap.ts';

const firstNames = ['Ava', 'Liam', 'Maya', 'Noah', 'Zoe', 'Ethan', 'Iris', 'Omar', 'Lena', 'Ravi', 'Sofia', 'Jonah'];
const lastNames = ['Nguyen', 'Garcia', 'Okafor', 'Schmidt', 'Rossi', 'Kim', 'Patel', 'Cohen', 'Silva', 'Haddad'];
const places = [
  { region: 'west', territory: 'california', timezone: 'US/Pacific' as const, city: 'Oakland', state: 'CA', zip: '94612' },
  { region: 'west', territory: 'oregon', timezone: 'US/Pacific' as const, city: 'Portland', state: 'OR', zip: '97205' },
  { region: 'east', territory: 'new-york', timezone: 'US/Eastern' as const, city: 'Albany', state: 'NY', zip: '12207' },
  { region: 'east', territory: 'florida', timezone: 'US/Eastern' as const, city: 'Tampa', state: 'FL', zip: '33602' },
];

export const DEMO_PASSWORD = 'demo-password-123';

/**
 * `cairn seed demo`: two care coordinators who can sign in, forty patients with care teams, the
 * coordinators' work hours and availability, and a week of appointments from the next Monday:
 * some of them encounters (with their disposition and assessment links); and the patients' blood
 * pressures, HbA1c results, problems, allergies and medications, which FHIR serves as US Core.
 */
export async function seedDemo(services: Services): Promise<string[]> {
  const { tenant, instance } = await demoInstanceOf(services);
  return seedInstance(systemContext(services, tenant, instance));
}

/** The demo's records in an instance of the demo formation (the demo's own, or a test's). */
export async function seedInstance(ctx: Context): Promise<string[]> {
  const { instance } = ctx;
  const coordinators = [];
  for (const [index, name] of [
    ['Casey', 'Morgan', 'west'],
    ['Jordan', 'Lee', 'east'],
  ].entries()) {
    const [firstName, lastName, region] = name as [string, string, string];
    const username = `${firstName.toLowerCase()}.${lastName.toLowerCase()}`;
    const user = await saveUser(ctx, {
      username,
      email: `${username}@demo.example`,
      firstName,
      lastName,
      timezone: index === 0 ? 'US/Pacific' : 'US/Eastern',
      roles: [{ permissionName: 'care-coordinator', instanceName: instance.name, primaryRole: true }],
      territories: [{ name: region, territories: [], instanceName: instance.name }],
      seats: ['GENERAL'],
    });
    await setPassword(ctx, user.id, 'ID', DEMO_PASSWORD);
    coordinators.push(user);
  }
  const patients: string[] = [];
  for (let i = 0; i < 40; i++) {
    const place = places[i % places.length]!;
    const coordinator = coordinators[place.region === 'west' ? 0 : 1]!;
    const firstName = firstNames[i % firstNames.length]!;
    const lastName = lastNames[(i * 7) % lastNames.length]!;
    const patient = await createPatient(ctx, {
      firstName,
      lastName,
      birthDate: `19${50 + (i % 50)}-0${1 + (i % 9)}-1${i % 10}`,
      email: `${firstName.toLowerCase()}.${lastName.toLowerCase()}${i}@patients.example`,
      phone: `+1415555${String(1000 + i).padStart(4, '0')}`,
      mrn: `MRN-${String(10_000 + i)}`,
      addressLine1: `${100 + i * 7} Main Street`,
      city: place.city,
      state: place.state,
      zip: place.zip,
      country: 'US',
      timezone: place.timezone,
      patientRegion: place.region,
      patientTerritory: place.territory,
      careTeam: [{ id: coordinator.id, pointOfContact: true }],
      riskLevel: ['LOW', 'MEDIUM', 'HIGH'][i % 3],
    });
    patients.push(patient.id);
  }
  await seedCalendar(ctx, coordinators, patients);
  await seedClinicalData(ctx, patients);
  return coordinators.map((user) => user.username);
}

/** Work hours (Monday to Friday, 9 to 5 in each coordinator's zone), morning availability, and a week of visits. */
async function seedCalendar(ctx: Context, coordinators: { id: string }[], patients: string[]) {
  const now = ctx.services.clock.now();
  const weekdays = [1, 2, 3, 4, 5];
  for (const coordinator of coordinators) {
    await createWorkHours(ctx, {
      psmId: coordinator.id,
      type: 'WORKING_HOURS',
      startDateTime: now.toISOString(),
      daysInfo: weekdays.map((day) => ({ day, startTime: '09:00:00', endTime: '17:00:00' })),
    });
    await createWorkHours(ctx, {
      psmId: coordinator.id,
      type: 'AVAILABILITY',
      startDateTime: now.toISOString(),
      daysInfo: weekdays.map((day) => ({ day, startTime: '09:00:00', endTime: '12:00:00' })),
      encounters: ['intake', 'check-in', 'video-visit'],
    });
  }
  // The next Monday, 17:00 UTC (morning on both coasts), then one visit a day per coordinator.
  const monday = new Date(
    Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + ((8 - now.getUTCDay()) % 7 || 7), 17),
  );
  for (let day = 0; day < 5; day++) {
    for (const [index, coordinator] of coordinators.entries()) {
      const start = new Date(monday.getTime() + day * 86_400_000 + index * 3 * 3_600_000);
      const end = new Date(start.getTime() + 30 * 60_000);
      const patientId = patients[(day * coordinators.length + index) % patients.length]!;
      const appointment = { startDateTime: start.toISOString(), endDateTime: end.toISOString(), hostId: coordinator.id };
      if (day % 2 === 0) {
        await createCalendarEvent(ctx, {
          ...appointment,
          eventTitle: 'Care plan review',
          eventType: 'APPOINTMENT',
          eventStatus: 'SCHEDULED',
          eventMode: 'IN-PERSON',
          participants: [{ participantId: patientId, participantRole: 'patient' }],
        });
        continue;
      }
      const template = day === 1 ? 'intake' : 'check-in';
      await createEncounter(ctx, patientId, {
        templateName: template,
        responsibleParty: 'SELF_PAY',
        ...(template === 'intake' ? { location: 'Clinic, room 2' } : {}),
        currentScheduledAppointment: {
          ...appointment,
          eventStatus: 'SCHEDULED',
          eventMode: template === 'intake' ? 'IN-PERSON' : 'CALL',
        },
      });
    }
  }
}

const problems = [
  { 'cdtf-problem': 'Type 2 diabetes mellitus', 'cdtf-snomed': '44054006' },
  { 'cdtf-problem': 'Essential hypertension', 'cdtf-snomed': '59621000' },
  { 'cdtf-problem': 'Asthma', 'cdtf-snomed': '195967001' },
];
const allergies = [
  { 'cdtf-substance': 'Penicillin', 'cdtf-snomed': '764146007' },
  { 'cdtf-substance': 'Peanut', 'cdtf-snomed': '762952008' },
];
const medications = [
  { 'cdtf-medication': 'Metformin 500 MG Oral Tablet', 'cdtf-rxnorm': '861007', 'cdtf-dosage': 'One tablet twice a day' },
  { 'cdtf-medication': 'Lisinopril 10 MG Oral Tablet', 'cdtf-rxnorm': '314076', 'cdtf-dosage': 'One tablet a day' },
];

/**
 * The clinical records of the demo formation's CDTs that FHIR serves as US Core (formations/demo.json
 * `fhir`): two blood pressures each, and for some patients an HbA1c, a problem, an allergy, a medication.
 */
async function seedClinicalData(ctx: Context, patients: string[]) {
  const now = ctx.services.clock.now().getTime();
  const daysAgo = (days: number) => new Date(now - days * 86_400_000);
  for (const [i, patientId] of patients.entries()) {
    for (const days of [30, 2]) {
      await createRecord(ctx, patientId, 'vitals', {
        'cdtf-systolic': 118 + ((i * 7 + days) % 30),
        'cdtf-diastolic': 74 + ((i * 3 + days) % 15),
        'cdtf-measured-on': daysAgo(days + (i % 5)).toISOString(),
        'cdtf-position': 'SITTING',
      });
    }
    if (i % 2 === 0) {
      const collected = daysAgo(10 + i)
        .toISOString()
        .slice(0, 10);
      await createRecord(ctx, patientId, 'hba1c', { 'cdtf-percent': 5.4 + (i % 8) * 0.4, 'cdtf-collected-on': collected });
    }
    if (i % 3 === 0) {
      const onset = daysAgo(400 + i * 20)
        .toISOString()
        .slice(0, 10);
      await createRecord(ctx, patientId, 'problems', {
        ...problems[i % problems.length]!,
        'cdtf-status': 'active',
        'cdtf-onset': onset,
      });
    }
    if (i % 4 === 0)
      await createRecord(ctx, patientId, 'allergies', { ...allergies[i % allergies.length]!, 'cdtf-status': 'active' });
    if (i % 3 === 0) {
      const started = daysAgo(200 + i)
        .toISOString()
        .slice(0, 10);
      await createRecord(ctx, patientId, 'medications', {
        ...medications[i % medications.length]!,
        'cdtf-status': 'active',
        'cdtf-started-on': started,
      });
    }
  }
}
