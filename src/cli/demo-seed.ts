import { systemContext } from '../http/context.ts';
import type { Services } from '../http/services.ts';
import { createPatient } from '../modules/patients/index.ts';
import { saveUser, setPassword } from '../modules/users/index.ts';
import { demoInstanceOf } from './bootstrap.ts';

const firstNames = ['Ava', 'Liam', 'Maya', 'Noah', 'Zoe', 'Ethan', 'Iris', 'Omar', 'Lena', 'Ravi', 'Sofia', 'Jonah'];
const lastNames = ['Nguyen', 'Garcia', 'Okafor', 'Schmidt', 'Rossi', 'Kim', 'Patel', 'Cohen', 'Silva', 'Haddad'];
const places = [
  { region: 'west', territory: 'california', timezone: 'US/Pacific' as const },
  { region: 'west', territory: 'oregon', timezone: 'US/Pacific' as const },
  { region: 'east', territory: 'new-york', timezone: 'US/Eastern' as const },
  { region: 'east', territory: 'florida', timezone: 'US/Eastern' as const },
];

export const DEMO_PASSWORD = 'demo-password-123';

/** `cairn seed demo`: two care coordinators who can sign in, and forty patients with care teams. */
export async function seedDemo(services: Services): Promise<string[]> {
  const { tenant, instance } = await demoInstanceOf(services);
  const ctx = systemContext(services, tenant, instance);
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
  for (let i = 0; i < 40; i++) {
    const place = places[i % places.length]!;
    const coordinator = coordinators[place.region === 'west' ? 0 : 1]!;
    const firstName = firstNames[i % firstNames.length]!;
    const lastName = lastNames[(i * 7) % lastNames.length]!;
    await createPatient(ctx, {
      firstName,
      lastName,
      birthDate: `19${50 + (i % 50)}-0${1 + (i % 9)}-1${i % 10}`,
      email: `${firstName.toLowerCase()}.${lastName.toLowerCase()}${i}@patients.example`,
      phone: `+1415555${String(1000 + i).padStart(4, '0')}`,
      mrn: `MRN-${String(10_000 + i)}`,
      timezone: place.timezone,
      patientRegion: place.region,
      patientTerritory: place.territory,
      careTeam: [{ id: coordinator.id, pointOfContact: true }],
      riskLevel: ['LOW', 'MEDIUM', 'HIGH'][i % 3],
    });
  }
  return coordinators.map((user) => user.username);
}
