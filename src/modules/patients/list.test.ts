import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import {
  Api,
  assertCode,
  createPatient,
  createTestTenant,
  pageObjectKeys,
  type Response,
  startApp,
  type TestTenant,
  testFormation,
} from '../../test/harness.ts';

/** GET /patients and POST /by-filter/patients: the page object, search, filters, sort and paging. */

const app = await startApp();

async function createUser(t: TestTenant, username: string) {
  const response = await t.api.post(`${t.admin}/users`, {
    username,
    email: `${username}@example.org`,
    roles: [{ permissionName: 'admin', instanceName: 'sandbox' }],
  });
  assert.equal(response.status, 201, response.text);
  return response.body as { id: string; username: string };
}

/** Ids of a page's content, in order. */
function ids(response: Response): string[] {
  assert.equal(response.status, 200, response.text);
  return (response.body as { content: { id: string }[] }).content.map((p) => p.id);
}

/** Ids of a page's content, order ignored. */
function idSet(response: Response): string[] {
  return ids(response).sort();
}

function sorted(...values: { id: string }[]): string[] {
  return values.map((v) => v.id).sort();
}

function q(params: Record<string, string>): string {
  return new URLSearchParams(params).toString();
}

describe('the page object', () => {
  test('has exactly the keys of 000, for the list and for by-filter', async () => {
    const t = await createTestTenant(app);
    const patient = await createPatient(t);
    for (const response of [await t.api.get(`${t.base}/patients`), await t.api.post(`${t.base}/by-filter/patients`, {})]) {
      assert.equal(response.status, 200, response.text);
      const page = response.body;
      assert.deepEqual(Object.keys(page).sort(), pageObjectKeys);
      assert.deepEqual(Object.keys(page.pageable).sort(), ['offset', 'pageNumber', 'pageSize', 'paged', 'sort', 'unpaged']);
      assert.deepEqual(Object.keys(page.sort).sort(), ['empty', 'sorted', 'unsorted']);
      assert.deepEqual(Object.keys(page.pageable.sort).sort(), ['empty', 'sorted', 'unsorted']);
      assert.deepEqual(page.pageable, {
        sort: { sorted: false, unsorted: true, empty: true },
        pageSize: 20,
        pageNumber: 0,
        offset: 0,
        unpaged: false,
        paged: true,
      });
      assert.equal(page.totalElements, 1);
      assert.equal(page.totalPages, 1);
      assert.equal(page.first, true);
      assert.equal(page.last, true);
      assert.equal(page.number, 0);
      assert.equal(page.size, 20);
      assert.equal(page.numberOfElements, 1);
      assert.equal(page.empty, false);
      assert.deepEqual(page.sort, { sorted: false, unsorted: true, empty: true });
      // A listed patient is the same object GET /patients/{id} answers.
      const read = await t.api.get(`${t.base}/patients/${patient.id}`);
      assert.deepEqual(page.content[0], read.body);
    }
  });

  test('an empty page: totalPages 0, first, last and empty', async () => {
    const t = await createTestTenant(app);
    for (const response of [await t.api.get(`${t.base}/patients`), await t.api.post(`${t.base}/by-filter/patients`, {})]) {
      assert.equal(response.status, 200);
      assert.deepEqual(Object.keys(response.body).sort(), pageObjectKeys);
      const { content, pageable, ...rest } = response.body;
      assert.deepEqual(content, []);
      assert.equal(pageable.offset, 0);
      assert.deepEqual(rest, {
        totalElements: 0,
        totalPages: 0,
        last: true,
        first: true,
        number: 0,
        size: 20,
        numberOfElements: 0,
        empty: true,
        sort: { sorted: false, unsorted: true, empty: true },
      });
    }
  });

  test('pages through the list without repeats or gaps', async () => {
    const t = await createTestTenant(app);
    const created = [];
    for (const name of ['Eve', 'Bob', 'Dan', 'Ann', 'Cid']) created.push(await createPatient(t, { firstName: name }));
    const seen: string[] = [];
    for (const pageNumber of [0, 1, 2]) {
      const response = await t.api.get(`${t.base}/patients?size=2&page=${pageNumber}&sort=firstName,asc`);
      assert.equal(response.status, 200);
      const page = response.body;
      assert.equal(page.totalElements, 5);
      assert.equal(page.totalPages, 3);
      assert.equal(page.number, pageNumber);
      assert.equal(page.size, 2);
      assert.equal(page.numberOfElements, pageNumber === 2 ? 1 : 2);
      assert.equal(page.first, pageNumber === 0);
      assert.equal(page.last, pageNumber === 2);
      assert.equal(page.empty, false);
      assert.deepEqual(page.pageable, {
        sort: { sorted: true, unsorted: false, empty: false },
        pageSize: 2,
        pageNumber,
        offset: pageNumber * 2,
        unpaged: false,
        paged: true,
      });
      assert.deepEqual(page.sort, { sorted: true, unsorted: false, empty: false });
      seen.push(...page.content.map((p: { firstName: string }) => p.firstName));
    }
    assert.deepEqual(seen, ['Ann', 'Bob', 'Cid', 'Dan', 'Eve']);

    const beyond = await t.api.get(`${t.base}/patients?size=2&page=3`);
    assert.equal(beyond.status, 200);
    assert.deepEqual(beyond.body.content, []);
    assert.equal(beyond.body.empty, true);
    assert.equal(beyond.body.first, false);
    assert.equal(beyond.body.last, true);
    assert.equal(beyond.body.totalElements, 5);
    assert.equal(beyond.body.number, 3);

    // By default the newest come first.
    assert.deepEqual(ids(await t.api.get(`${t.base}/patients`)), created.map((p) => p.id).reverse());
    // by-filter takes paging in the query or the body; the query wins.
    const bodyPaged = await t.api.post(`${t.base}/by-filter/patients`, { page: 1, size: 2, sort: 'firstName,asc' });
    assert.deepEqual(
      bodyPaged.body.content.map((p: { firstName: string }) => p.firstName),
      ['Cid', 'Dan'],
    );
    assert.equal(bodyPaged.body.number, 1);
    const queryPaged = await t.api.post(`${t.base}/by-filter/patients?page=2&size=2&sort=firstName,desc`, {
      page: 0,
      size: 4,
      sort: 'firstName,asc',
    });
    assert.deepEqual(
      queryPaged.body.content.map((p: { firstName: string }) => p.firstName),
      ['Ann'],
    );
    assert.equal(queryPaged.body.size, 2);
  });

  test('page and size out of range are 400', async () => {
    const t = await createTestTenant(app);
    for (const query of ['size=0', 'size=1001', 'page=-1', 'size=abc', 'page=x', 'page=1.5', 'size=2.5']) {
      assertCode(await t.api.get(`${t.base}/patients?${query}`), 400, 'VALIDATION_ERROR', query);
      assertCode(await t.api.post(`${t.base}/by-filter/patients?${query}`, {}), 400, 'VALIDATION_ERROR', `by-filter ${query}`);
    }
    assertCode(await t.api.post(`${t.base}/by-filter/patients`, { size: 0 }), 400, 'VALIDATION_ERROR', 'body size 0');
    assertCode(await t.api.post(`${t.base}/by-filter/patients`, { page: '1' }), 400, 'VALIDATION_ERROR', 'body page as text');
    assert.equal((await t.api.get(`${t.base}/patients?size=1000`)).status, 200);
    // Unknown query parameters are ignored (DECISIONS §10).
    assert.equal((await t.api.get(`${t.base}/patients?whatever=1&page=0`)).status, 200);
  });
});

describe('search (and its alias query)', () => {
  async function fixture() {
    const t = await createTestTenant(app);
    const alice = await createPatient(t, {
      firstName: 'Alice',
      middleName: 'Marie',
      lastName: 'Zephyr',
      phone: '+12015550123',
      email: 'Alice.Z@Example.org',
      mrn: 'MRN-AAA-1',
      nric: 'S7654321A',
      accessCode: 'ACCESS-XYZ',
      city: 'Springfield',
      notes: 'quokka',
    });
    const bob = await createPatient(t, {
      firstName: 'Bob',
      lastName: 'Young',
      secondaryPhone: '+442079460000',
      secondaryEmail: 'bob.secondary@example.net',
      mrn: '555-0199',
    });
    const carol = await createPatient(t, { firstName: 'Carol', lastName: 'Xu', phone: '+6591234567', externalId: 'EXT-CAROL' });
    return { t, alice, bob, carol };
  }

  test('matches a case-insensitive substring of every searched field', async () => {
    const { t, alice, bob, carol } = await fixture();
    const cases: [string, { id: string }[]][] = [
      ['alice', [alice]],
      ['ALICE', [alice]],
      ['lice mar', [alice]],
      ['Alice Marie Zephyr', [alice]],
      ['alice zephyr', [alice]],
      ['zephyr', [alice]],
      ['bob young', [bob]],
      ['+12015550123', [alice]],
      ['2015550123', [alice]],
      ['5550', [alice]],
      ['2079460000', [bob]],
      ['alice.z@example.org', [alice]],
      ['EXAMPLE.ORG', [alice]],
      ['bob.secondary', [bob]],
      ['@example', [alice, bob]],
      ['mrn-aaa', [alice]],
      ['s7654321', [alice]],
      ['access-xyz', [alice]],
      ['xyz', [alice]],
      ['6591234567', [carol]],
      ['carol xu', [carol]],
    ];
    for (const [term, expected] of cases) {
      assert.deepEqual(
        idSet(await t.api.get(`${t.base}/patients?${q({ search: term })}`)),
        sorted(...expected),
        `search ${term}`,
      );
      assert.deepEqual(idSet(await t.api.get(`${t.base}/patients?${q({ query: term })}`)), sorted(...expected), `query ${term}`);
      assert.deepEqual(
        idSet(await t.api.post(`${t.base}/by-filter/patients`, { search: term })),
        sorted(...expected),
        `by-filter ${term}`,
      );
    }
  });

  test('a phone typed with dashes, spaces or brackets matches the stored E.164 form', async () => {
    const { t, alice, bob } = await fixture();
    for (const term of ['201-555-0123', '201 555 0123', '+1 (201) 555-0123', '(201) 555', '1-201-555-0123']) {
      assert.deepEqual(idSet(await t.api.get(`${t.base}/patients?${q({ search: term })}`)), [alice.id], term);
    }
    for (const term of ['+44 20 7946 0000', '20-7946-0000']) {
      assert.deepEqual(idSet(await t.api.get(`${t.base}/patients?${q({ search: term })}`)), [bob.id], term);
    }
  });

  test('an MRN made of digits and dashes is found as typed', async () => {
    const { t, bob } = await fixture();
    assert.deepEqual(idSet(await t.api.get(`${t.base}/patients?${q({ search: '555-0199' })}`)), [bob.id]);
    assert.deepEqual(idSet(await t.api.get(`${t.base}/patients?${q({ search: '0199' })}`)), [bob.id]);
  });

  test('other fields are not searched, wildcards are literal, and a blank search lists all', async () => {
    const { t, alice, bob, carol } = await fixture();
    for (const term of ['springfield', 'quokka', 'EXT-CAROL', 'nobody', '%', '_', 'a%e', "'; drop table patients; --"]) {
      assert.deepEqual(ids(await t.api.get(`${t.base}/patients?${q({ search: term })}`)), [], term);
    }
    assert.deepEqual(idSet(await t.api.get(`${t.base}/patients?${q({ search: '  ' })}`)), sorted(alice, bob, carol));
    assert.deepEqual(idSet(await t.api.get(`${t.base}/patients?search=`)), sorted(alice, bob, carol));
    // Search combines with the other filters.
    assert.deepEqual(idSet(await t.api.get(`${t.base}/patients?${q({ search: 'example', mrn: '555-0199' })}`)), [bob.id]);
  });

  test('the search follows updates', async () => {
    const { t, alice } = await fixture();
    await t.api.patch(`${t.base}/patients/${alice.id}`, { lastName: 'Quixote', email: null });
    assert.deepEqual(ids(await t.api.get(`${t.base}/patients?search=zephyr`)), []);
    assert.deepEqual(ids(await t.api.get(`${t.base}/patients?search=alice.z`)), []);
    assert.deepEqual(ids(await t.api.get(`${t.base}/patients?search=marie%20quixote`)), [alice.id]);
    // The search text is rebuilt from the stored fields and the PATCH, not from the PATCH alone.
    assert.deepEqual(ids(await t.api.get(`${t.base}/patients?search=mrn-aaa`)), [alice.id]);
  });
});

describe('filters (DECISIONS §8)', () => {
  async function fixture() {
    const t = await createTestTenant(app);
    const nurse = await createUser(t, 'nurse');
    const doctor = await createUser(t, 'doctor');
    const west = await createPatient(t, {
      firstName: 'West',
      email: 'West@Example.org',
      phone: '+12015550123',
      mrn: 'MRN-W',
      externalId: 'EXT-W',
      timezone: 'US/Pacific',
      patientRegion: 'west',
      patientTerritory: 'california',
      careTeam: [{ id: nurse.id }],
    });
    const east = await createPatient(t, {
      firstName: 'East',
      secondaryEmail: 'east.two@example.org',
      secondaryPhone: '+442079460000',
      mrn: 'MRN-E',
      timezone: 'US/Eastern',
      patientTerritories: [{ name: 'east', territories: ['florida'] }],
      careTeam: [{ id: doctor.id }, { id: nurse.id }],
    });
    const nowhere = await createPatient(t, { firstName: 'Nowhere', timezone: 'US/Eastern' });
    return { t, nurse, doctor, west, east, nowhere };
  }

  test('email, phone, mrn, externalId and timezone', async () => {
    const { t, west, east } = await fixture();
    const cases: [Record<string, string>, { id: string }[]][] = [
      [{ email: 'west@example.org' }, [west]],
      [{ email: 'WEST@EXAMPLE.ORG' }, [west]],
      [{ email: 'east.two@example.org' }, [east]],
      [{ email: 'west' }, []],
      [{ phone: '+12015550123' }, [west]],
      [{ phone: '+442079460000' }, [east]],
      [{ phone: '+6591234567' }, []],
      [{ mrn: 'MRN-W' }, [west]],
      [{ mrn: 'MRN' }, []],
      [{ externalId: 'EXT-W' }, [west]],
      [{ externalId: 'EXT' }, []],
      [{ timezone: 'US/Pacific' }, [west]],
      [{ timezone: 'US/Eastern', mrn: 'MRN-E' }, [east]],
      [{ timezone: 'CET' }, []],
    ];
    for (const [params, expected] of cases) {
      const label = JSON.stringify(params);
      assert.deepEqual(idSet(await t.api.get(`${t.base}/patients?${q(params)}`)), sorted(...expected), label);
      assert.deepEqual(
        idSet(await t.api.post(`${t.base}/by-filter/patients`, params)),
        sorted(...expected),
        `by-filter ${label}`,
      );
    }
    assert.equal((await t.api.get(`${t.base}/patients?${q({ timezone: 'US/Eastern' })}`)).body.totalElements, 2);
  });

  test('territories (a comma list) and region, from both ways of writing them', async () => {
    const { t, west, east } = await fixture();
    const cases: [Record<string, string>, { id: string }[]][] = [
      [{ territories: 'california' }, [west]],
      [{ territories: 'florida' }, [east]],
      [{ territories: 'california,florida' }, [west, east]],
      [{ territories: 'oregon,new-york' }, []],
      [{ region: 'west' }, [west]],
      [{ region: 'east' }, [east]],
      [{ region: 'north' }, []],
      [{ region: 'east', territories: 'california' }, []],
    ];
    for (const [params, expected] of cases) {
      assert.deepEqual(idSet(await t.api.get(`${t.base}/patients?${q(params)}`)), sorted(...expected), JSON.stringify(params));
    }
    // Repeated keys work as well as a comma list; by-filter takes an array.
    assert.deepEqual(idSet(await t.api.get(`${t.base}/patients?territories=california&territories=florida`)), sorted(west, east));
    assert.deepEqual(idSet(await t.api.post(`${t.base}/by-filter/patients`, { territories: ['florida', 'oregon'] })), [east.id]);
    assert.deepEqual(idSet(await t.api.post(`${t.base}/by-filter/patients`, { region: 'west' })), [west.id]);
    // Moving a patient moves it between filters.
    await t.api.patch(`${t.base}/patients/${west.id}`, { patientRegion: 'east', patientTerritory: 'new-york' });
    assert.deepEqual(idSet(await t.api.get(`${t.base}/patients?region=east`)), sorted(west, east));
    assert.deepEqual(ids(await t.api.get(`${t.base}/patients?territories=california`)), []);
  });

  test('careTeamMemberId and withoutCareTeam', async () => {
    const { t, nurse, doctor, west, east, nowhere } = await fixture();
    assert.deepEqual(idSet(await t.api.get(`${t.base}/patients?careTeamMemberId=${nurse.id}`)), sorted(west, east));
    assert.deepEqual(idSet(await t.api.get(`${t.base}/patients?careTeamMemberId=${doctor.id}`)), [east.id]);
    assert.deepEqual(ids(await t.api.get(`${t.base}/patients?careTeamMemberId=${randomUUID()}`)), []);
    assert.deepEqual(idSet(await t.api.post(`${t.base}/by-filter/patients`, { careTeamMemberId: doctor.id })), [east.id]);
    for (const value of ['true', 'True', 'TRUE']) {
      assert.deepEqual(ids(await t.api.get(`${t.base}/patients?withoutCareTeam=${value}`)), [nowhere.id], value);
    }
    assert.deepEqual(idSet(await t.api.get(`${t.base}/patients?withoutCareTeam=false`)), sorted(west, east, nowhere));
    assert.deepEqual(ids(await t.api.post(`${t.base}/by-filter/patients`, { withoutCareTeam: true })), [nowhere.id]);
    assert.deepEqual(ids(await t.api.get(`${t.base}/patients?withoutCareTeam=true&careTeamMemberId=${nurse.id}`)), []);
  });

  test('createdAfter/Before and updatedAfter/Before', async () => {
    const { t, west, east, nowhere } = await fixture();
    const between = (params: Record<string, string>) => t.api.get(`${t.base}/patients?${q(params)}`);
    assert.deepEqual(idSet(await between({ createdAfter: east.createdAt })), sorted(east, nowhere));
    assert.deepEqual(idSet(await between({ createdBefore: east.createdAt })), [west.id]);
    assert.deepEqual(
      idSet(await between({ createdAfter: west.createdAt, createdBefore: nowhere.createdAt })),
      sorted(west, east),
    );
    assert.deepEqual(idSet(await between({ createdAfter: '2000-01-01T00:00:00Z' })), sorted(west, east, nowhere));
    assert.deepEqual(ids(await between({ createdBefore: '2000-01-01T00:00:00+02:00' })), []);
    assert.deepEqual(
      idSet(await t.api.post(`${t.base}/by-filter/patients`, { createdAfter: east.createdAt, createdBefore: nowhere.createdAt })),
      [east.id],
    );

    const patched = await t.api.patch(`${t.base}/patients/${west.id}`, { city: 'Rome' });
    assert.equal(patched.status, 200);
    assert.deepEqual(ids(await between({ updatedAfter: patched.body.updatedAt })), [west.id]);
    assert.deepEqual(idSet(await between({ updatedBefore: patched.body.updatedAt })), sorted(east, nowhere));
    assert.deepEqual(ids(await between({ updatedAfter: '2999-01-01T00:00:00.000Z' })), []);
    assert.deepEqual(ids(await t.api.post(`${t.base}/by-filter/patients`, { updatedAfter: patched.body.updatedAt })), [west.id]);
  });

  test('assignedToMe: nothing for an API client, the care-team patients of a user', async () => {
    const { t, nurse, doctor, west, east, nowhere } = await fixture();
    assert.deepEqual(ids(await t.api.get(`${t.base}/patients?assignedToMe=true`)), []);
    assert.deepEqual(ids(await t.api.post(`${t.base}/by-filter/patients`, { assignedToMe: true })), []);
    assert.deepEqual(idSet(await t.api.get(`${t.base}/patients?assignedToMe=false`)), sorted(west, east, nowhere));

    const signIn = async (username: string) => {
      const set = await t.api.put(`${t.admin}/users/${username}/password`, { password: 'correct horse battery' });
      assert.equal(set.status, 200, set.text);
      const login = await t.anonymous.post('/auth/token', {
        tenantName: t.tenant.name,
        username,
        password: 'correct horse battery',
      });
      assert.equal(login.status, 200, login.text);
      return new Api(app.server, login.body.token);
    };
    const asNurse = await signIn(nurse.username);
    const asDoctor = await signIn(doctor.username);
    assert.deepEqual(idSet(await asNurse.get(`${t.base}/patients?assignedToMe=true`)), sorted(west, east));
    assert.deepEqual(idSet(await asNurse.get(`${t.base}/patients?assignedToMe=TRUE&region=west`)), [west.id]);
    assert.deepEqual(idSet(await asNurse.post(`${t.base}/by-filter/patients`, { assignedToMe: true })), sorted(west, east));
    assert.deepEqual(idSet(await asNurse.get(`${t.base}/patients`)), sorted(west, east, nowhere));
    assert.deepEqual(ids(await asDoctor.get(`${t.base}/patients?assignedToMe=true`)), [east.id]);
    // A user who writes a patient is named as such.
    const written = await asDoctor.post(`${t.base}/patients`, {
      firstName: 'By',
      lastName: 'User',
      careTeam: [{ id: doctor.id }],
    });
    assert.equal(written.status, 201, written.text);
    assert.equal(written.body.createdBy, doctor.id);
    assert.deepEqual(idSet(await asDoctor.get(`${t.base}/patients?assignedToMe=true`)), sorted(east, written.body));
  });

  test('bad filter values are 400', async () => {
    const { t } = await fixture();
    const badQueries = [
      'careTeamMemberId=nurse',
      'createdAfter=yesterday',
      'createdBefore=2024-13-01T00:00:00Z',
      'updatedAfter=12345',
      'withoutCareTeam=maybe',
      'assignedToMe=yes',
    ];
    for (const query of badQueries) assertCode(await t.api.get(`${t.base}/patients?${query}`), 400, 'VALIDATION_ERROR', query);
    const badBodies: Record<string, unknown>[] = [
      { search: 5 },
      { email: ['a@example.org'] },
      { ids: ['not-a-uuid'] },
      { ids: 'x' },
      { territories: 'west' },
      { careTeamMemberId: 'nurse' },
      { createdAfter: 'yesterday' },
      { withoutCareTeam: 'true' },
      { assignedToMe: 1 },
    ];
    for (const body of badBodies) {
      assertCode(await t.api.post(`${t.base}/by-filter/patients`, body), 400, 'VALIDATION_ERROR', JSON.stringify(body));
    }
    assertCode(
      await t.api.request('POST', `${t.base}/by-filter/patients`, '{"search":', { 'content-type': 'application/json' }),
      400,
      'MALFORMED_JSON',
    );
  });

  test('by-filter: ids, and unknown keys ignored', async () => {
    const { t, west, east } = await fixture();
    assert.deepEqual(
      idSet(await t.api.post(`${t.base}/by-filter/patients`, { ids: [west.id, east.id, randomUUID()] })),
      sorted(west, east),
    );
    assert.deepEqual(ids(await t.api.post(`${t.base}/by-filter/patients`, { ids: [] })), []);
    assert.deepEqual(ids(await t.api.post(`${t.base}/by-filter/patients`, { ids: [west.id, east.id], region: 'east' })), [
      east.id,
    ]);
    assert.equal((await t.api.post(`${t.base}/by-filter/patients`, { somethingElse: 1 })).body.totalElements, 3);
  });
});

describe('sort', () => {
  test('on scalar fields, ascending and descending, nulls last when ascending', async () => {
    const t = await createTestTenant(app);
    const b = await createPatient(t, { firstName: 'Bea', lastName: 'Cole', birthDate: '1990-01-01', mrn: 'M2', gender: 'MALE' });
    const a = await createPatient(t, {
      firstName: 'Abe',
      lastName: 'Diaz',
      birthDate: '1970-06-15',
      mrn: 'M3',
      gender: 'FEMALE',
    });
    const c = await createPatient(t, { firstName: 'Cal', lastName: 'Ames', mrn: 'M1', gender: 'MALE' });
    const list = (sort: string) => t.api.get(`${t.base}/patients?${q({ sort })}`);
    assert.deepEqual(ids(await list('firstName,asc')), [a.id, b.id, c.id]);
    assert.deepEqual(ids(await list('firstName,desc')), [c.id, b.id, a.id]);
    assert.deepEqual(ids(await list('firstName')), [a.id, b.id, c.id], 'asc by default');
    assert.deepEqual(ids(await list('firstName,DESC')), [c.id, b.id, a.id], 'direction in any case');
    assert.deepEqual(ids(await list('lastName,asc')), [c.id, b.id, a.id]);
    assert.deepEqual(ids(await list('mrn,desc')), [a.id, b.id, c.id]);
    assert.deepEqual(ids(await list('birthDate,asc')), [a.id, b.id, c.id]);
    assert.deepEqual(ids(await list('birthDate,desc')), [c.id, b.id, a.id]);
    assert.deepEqual(ids(await list('createdAt,asc')), [b.id, a.id, c.id]);
    assert.deepEqual(ids(await list('createdAt,desc')), [c.id, a.id, b.id]);
    // Several keys: repeated sort parameters.
    assert.deepEqual(ids(await t.api.get(`${t.base}/patients?sort=gender,desc&sort=firstName,desc`)), [c.id, b.id, a.id]);
    assert.deepEqual(ids(await t.api.get(`${t.base}/patients?sort=gender,asc&sort=firstName,asc`)), [a.id, b.id, c.id]);
    await t.api.patch(`${t.base}/patients/${b.id}`, { city: 'Rome' });
    assert.deepEqual(ids(await list('updatedAt,desc')), [b.id, c.id, a.id]);
    // by-filter sorts from the body or the query.
    assert.deepEqual(ids(await t.api.post(`${t.base}/by-filter/patients`, { sort: 'lastName,desc' })), [a.id, b.id, c.id]);
    assert.deepEqual(ids(await t.api.post(`${t.base}/by-filter/patients?sort=lastName,asc`, {})), [c.id, b.id, a.id]);
    // Free-text notes sort too (DECISIONS §8), by their first 200 characters, then by id.
    for (const [patient, notes] of [
      [a, `${'m'.repeat(300)}z`],
      [b, 'a short note'],
    ] as const) {
      const patched = await t.api.patch(`${t.base}/patients/${patient.id}`, { notes });
      assert.equal(patched.status, 200, patched.text);
    }
    assert.deepEqual(ids(await list('notes,asc')), [b.id, a.id, c.id], 'no notes last');
    assert.deepEqual(ids(await list('notes,desc')).slice(1), [a.id, b.id]);
    const response = await list('lastName,asc');
    assert.deepEqual(response.body.sort, { sorted: true, unsorted: false, empty: false });
  });

  test('an unknown field or direction is 400 INVALID_SORT', async () => {
    const t = await createTestTenant(app);
    for (const sort of ['favourite,asc', 'careTeam,asc', 'firstName,sideways', 'firstName,asc,desc', 'first_name,asc']) {
      assertCode(await t.api.get(`${t.base}/patients?${q({ sort })}`), 400, 'INVALID_SORT', sort);
      assertCode(await t.api.post(`${t.base}/by-filter/patients`, { sort }), 400, 'INVALID_SORT', `by-filter ${sort}`);
    }
  });
});

describe('access', () => {
  test('401 without a token, 403 without PATIENT_READ, for both lists', async () => {
    const t = await createTestTenant(app);
    await createPatient(t);
    assertCode(await t.anonymous.get(`${t.base}/patients`), 401, 'NOT_VALID_JSON_WEB_TOKEN');
    assertCode(await t.anonymous.post(`${t.base}/by-filter/patients`, {}), 401, 'NOT_VALID_JSON_WEB_TOKEN');
    const writer = await t.apiWith(['PATIENT_CREATE', 'PATIENT_UPDATE', 'PATIENT_DELETE']);
    for (const response of [await writer.get(`${t.base}/patients`), await writer.post(`${t.base}/by-filter/patients`, {})]) {
      assertCode(response, 403, 'ACCESS_DENIED');
      assert.equal(response.body[0].details.permission, 'PATIENT_READ');
    }
    const reader = await t.apiWith(['PATIENT_READ']);
    assert.equal((await reader.get(`${t.base}/patients`)).body.totalElements, 1);
    assert.equal((await reader.post(`${t.base}/by-filter/patients`, {})).body.totalElements, 1);
  });

  test("custom attributes ride along in list items; another tenant's patients never appear", async () => {
    const t = await createTestTenant(
      app,
      testFormation({ patientAttributes: [{ name: 'riskLevel', type: 'select', options: ['LOW', 'HIGH'] }] }),
    );
    const other = await createTestTenant(app);
    const mine = await createPatient(t, { riskLevel: 'HIGH', firstName: 'Shared' });
    await createPatient(other, { firstName: 'Shared' });
    const list = await t.api.get(`${t.base}/patients?search=shared`);
    assert.deepEqual(ids(list), [mine.id]);
    assert.equal(list.body.content[0].riskLevel, 'HIGH');
    assert.deepEqual(ids(await t.api.post(`${t.base}/by-filter/patients`, { search: 'shared' })), [mine.id]);
  });
});
