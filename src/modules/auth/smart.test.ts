import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';
import { createPatient, createTestTenant, startApp, type TestTenant } from '../../test/harness.ts';

/**
 * SMART Backend Services (docs/fhir.md): a client registers public keys, signs an assertion with the
 * private one, trades it for a token whose scopes narrow its roles, and reads the FHIR API with it.
 */

const app = await startApp();
const TOKEN_URL = 'http://localhost:80/auth/smart/token';
const JWT_BEARER = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

type Keys = Awaited<ReturnType<typeof generateKeyPair>>;
const es384 = await generateKeyPair('ES384', { extractable: true });
const rs384 = await generateKeyPair('RS384');

async function publicJwk(keys: Keys, kid: string): Promise<JWK> {
  return { ...(await exportJWK(keys.publicKey)), kid, alg: keys === es384 ? 'ES384' : 'RS384' };
}

/** A client of the tenant holding `role`, with the key set registered through the admin route. */
async function registeredClient(t: TestTenant, role: string, given?: JWK[]) {
  const jwks = given ?? [await publicJwk(es384, 'es')];
  const client = await t.clientWithRole(role);
  const response = await t.api.patch(`${t.admin}/api-clients/${client.id}`, { jwks: { keys: jwks } });
  assert.equal(response.status, 200, response.text);
  return client;
}

interface AssertionOptions {
  keys?: Keys;
  kid?: string;
  alg?: string;
  audience?: string;
  expiresIn?: number;
  jti?: string;
  issuer?: string;
}

function assertion(clientKey: string, options: AssertionOptions = {}) {
  const now = Math.floor(app.services.clock.now().getTime() / 1000);
  return new SignJWT({})
    .setProtectedHeader({ alg: options.alg ?? 'ES384', kid: options.kid ?? 'es', typ: 'JWT' })
    .setIssuer(options.issuer ?? clientKey)
    .setSubject(clientKey)
    .setAudience(options.audience ?? TOKEN_URL)
    .setExpirationTime(now + (options.expiresIn ?? 240))
    .setJti(options.jti ?? randomUUID())
    .sign((options.keys ?? es384).privateKey);
}

async function tokenRequest(fields: Record<string, string>) {
  const response = await app.server.inject({
    method: 'POST',
    url: '/auth/smart/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams(fields).toString(),
  });
  return { status: response.statusCode, body: response.json(), headers: response.headers };
}

const grant = (clientAssertion: string, scope = 'system/Patient.rs') =>
  tokenRequest({ grant_type: 'client_credentials', scope, client_assertion_type: JWT_BEARER, client_assertion: clientAssertion });

async function bearer(token: string, url: string) {
  const response = await app.server.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });
  return { status: response.statusCode, body: response.json() };
}

describe('SMART Backend Services', () => {
  test('discovery says where and how; a registered ES384 or RS384 key gets a token that reads the FHIR API', async () => {
    const t = await createTestTenant(app);
    const config = await t.anonymous.get(`${t.base}/fhir/R4/.well-known/smart-configuration`);
    assert.equal(config.status, 200, config.text);
    // One token endpoint for apps and backend services, at the FHIR base; /auth/smart/token stays for clients that know it.
    const fhirToken = `http://localhost:80${t.base}/fhir/R4/oauth/token`;
    assert.equal(config.body.token_endpoint, fhirToken);
    assert.ok(config.body.grant_types_supported.includes('client_credentials'));
    assert.ok(config.body.token_endpoint_auth_methods_supported.includes('private_key_jwt'));
    assert.deepEqual(config.body.token_endpoint_auth_signing_alg_values_supported, ['RS384', 'ES384']);
    assert.ok(config.body.scopes_supported.includes('system/Patient.rs'));
    assert.ok(config.body.capabilities.includes('client-confidential-asymmetric'));
    // SMART App Launch 2.0 requires it: S256, never plain.
    assert.deepEqual(config.body.code_challenge_methods_supported, ['S256']);
    assert.equal(config.body.authorization_endpoint, `http://localhost:80${t.base}/fhir/R4/oauth/authorize`);
    // Under the FHIR base, a miss is an OperationOutcome.
    const nowhere = await t.anonymous.get(`/${t.tenant.name}/nowhere/fhir/R4/.well-known/smart-configuration`);
    assert.equal(nowhere.status, 404);
    assert.match(String(nowhere.headers['content-type']), /^application\/fhir\+json/);
    assert.deepEqual([nowhere.body.resourceType, nowhere.body.issue[0].details.text], ['OperationOutcome', 'INSTANCE_NOT_FOUND']);

    const client = await registeredClient(t, 'admin', [await publicJwk(es384, 'es'), await publicJwk(rs384, 'rs')]);
    const shown = await t.api.get(`${t.admin}/api-clients/${client.id}`);
    assert.deepEqual(
      shown.body.jwks.keys.map((key: JWK) => key.kid),
      ['es', 'rs'],
    );
    const patient = await createPatient(t, { firstName: 'Ada', lastName: 'Quill' });
    for (const options of [{}, { keys: rs384, kid: 'rs', alg: 'RS384' }]) {
      const issued = await grant(await assertion(client.clientKey, options), 'system/Patient.rs system/Task.r');
      assert.equal(issued.status, 200, JSON.stringify(issued.body));
      assert.equal(issued.body.token_type, 'bearer');
      assert.equal(issued.body.expires_in, 3600);
      assert.equal(issued.body.scope, 'system/Patient.rs system/Task.r');
      assert.equal(issued.headers['cache-control'], 'no-store');
      const read = await bearer(issued.body.access_token, `${t.base}/fhir/R4/Patient/${patient.id}`);
      assert.equal(read.status, 200, JSON.stringify(read.body));
      assert.equal(read.body.id, patient.id);
    }

    // The same grant at the discovered endpoint, the assertion's aud naming it; a client of another tenant is refused there.
    const atBase = (signed: string, base = t.base) =>
      app.server.inject({
        method: 'POST',
        url: `${base}/fhir/R4/oauth/token`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({
          grant_type: 'client_credentials',
          scope: 'system/Patient.rs',
          client_assertion_type: JWT_BEARER,
          client_assertion: signed,
        }).toString(),
      });
    const fromBase = await atBase(await assertion(client.clientKey, { audience: fhirToken }));
    assert.equal(fromBase.statusCode, 200, fromBase.body);
    assert.equal((await bearer(fromBase.json().access_token, `${t.base}/fhir/R4/Patient/${patient.id}`)).status, 200);
    const other = await createTestTenant(app);
    const elsewhere = await atBase(
      await assertion(client.clientKey, { audience: `http://localhost:80${other.base}/fhir/R4/oauth/token` }),
      other.base,
    );
    assert.equal(elsewhere.statusCode, 401, elsewhere.body);
    assert.equal(elsewhere.json().error, 'invalid_client');
  });

  test('scopes narrow the roles: other types, searches not granted and the care-management API are refused', async () => {
    const t = await createTestTenant(app);
    const admin = await registeredClient(t, 'admin');
    const patient = await createPatient(t, { firstName: 'Bo', lastName: 'Reed' });
    const readOnly = await grant(await assertion(admin.clientKey), 'system/Patient.r');
    assert.equal(readOnly.status, 200);
    const token = readOnly.body.access_token;
    assert.equal((await bearer(token, `${t.base}/fhir/R4/Patient/${patient.id}`)).status, 200);
    const search = await bearer(token, `${t.base}/fhir/R4/Patient?family=reed`);
    assert.equal(search.status, 403);
    assert.equal(search.body.resourceType, 'OperationOutcome');
    const byPost = await app.server.inject({
      method: 'POST',
      url: `${t.base}/fhir/R4/Patient/_search`,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'family=reed',
    });
    assert.equal(byPost.statusCode, 403, 'a search by POST needs Patient.s too');
    assert.equal((await bearer(token, `${t.base}/fhir/R4/Task`)).status, 403);
    assert.equal((await bearer(token, `${t.base}/patients/${patient.id}`)).status, 403, 'not the care-management API');
    assert.equal((await bearer(token, `${t.admin}/api-clients`)).status, 403);

    // Everything, asked as `*`, is what the roles allow: a patient reader gets what PATIENT_READ reads.
    const reader = await registeredClient(t, 'patient-reader');
    const all = await grant(await assertion(reader.clientKey), 'system/*.rs');
    assert.equal(all.status, 200, JSON.stringify(all.body));
    const granted = all.body.scope.split(' ');
    assert.ok(granted.includes('system/Patient.rs'), all.body.scope);
    assert.ok(!granted.includes('system/Task.rs') && !granted.includes('system/Practitioner.rs'), all.body.scope);
    assert.ok(granted.includes('system/Provenance.rs'), 'Provenance: read where its target (here a Patient) is');
    const none = await grant(await assertion(reader.clientKey), 'system/Task.rs patient/Patient.rs');
    assert.equal(none.status, 400);
    assert.equal(none.body.error, 'invalid_scope');

    // Cairn's own tokens are not narrowed.
    assert.equal((await t.api.get(`${t.base}/patients/${patient.id}`)).status, 200);
    assert.equal((await t.api.get(`${t.base}/fhir/R4/Patient?family=reed`)).status, 200);
  });

  test('the CapabilityStatement names the token endpoint; a scoped token exports only the types its scopes name', async () => {
    const t = await createTestTenant(app);
    const metadata = await t.anonymous.get(`${t.base}/fhir/R4/metadata`);
    const security = metadata.body.rest[0].security;
    assert.deepEqual(security.extension[0].extension[0], {
      url: 'token',
      valueUri: `http://localhost:80${t.base}/fhir/R4/oauth/token`,
    });
    assert.ok(security.service[0].coding.some((coding: { code: string }) => coding.code === 'SMART-on-FHIR'));

    const client = await registeredClient(t, 'admin');
    const issued = await grant(await assertion(client.clientKey), 'system/Patient.rs');
    const kickOff = (type: string) =>
      app.server.inject({
        method: 'GET',
        url: `${t.base}/fhir/R4/$export?_type=${type}`,
        headers: {
          authorization: `Bearer ${issued.body.access_token}`,
          prefer: 'respond-async',
          accept: 'application/fhir+json',
        },
      });
    assert.equal((await kickOff('Task')).statusCode, 403);
    const started = await kickOff('Patient');
    assert.equal(started.statusCode, 202, started.body);
    const status = new URL(String(started.headers['content-location'])).pathname;
    const polled = await app.server.inject({
      method: 'GET',
      url: status,
      headers: { authorization: `Bearer ${issued.body.access_token}` },
    });
    assert.equal(polled.statusCode, 202);
  });

  test('an assertion is refused when forged, replayed, too long-lived, for another audience or from a client without keys', async () => {
    const t = await createTestTenant(app);
    const client = await registeredClient(t, 'admin');
    const refused = async (clientAssertion: string | Promise<string>, why: RegExp) => {
      const response = await grant(await clientAssertion);
      assert.equal(response.status, 401, JSON.stringify(response.body));
      assert.equal(response.body.error, 'invalid_client');
      assert.match(response.body.error_description, why);
    };
    const other = await generateKeyPair('ES384');
    await refused(assertion(client.clientKey, { keys: other }), /signature/);
    const once = await assertion(client.clientKey, { jti: 'the-same' });
    assert.equal((await grant(once)).status, 200);
    await refused(once, /used before/);
    await refused(assertion(client.clientKey, { expiresIn: 600 }), /five minutes/);
    await refused(assertion(client.clientKey, { expiresIn: -60 }), /exp/);
    await refused(assertion(client.clientKey, { audience: 'https://elsewhere.example/token' }), /aud/);
    await refused(assertion('no-such-key'), /no API client/);
    const keyless = await t.clientWithRole('admin');
    await refused(assertion(keyless.clientKey), /registered no keys/);
    await t.api.patch(`${t.admin}/api-clients/${client.id}`, { enabled: false });
    await refused(assertion(client.clientKey), /disabled/);
  });

  test('OAuth errors for a bad request; key sets are checked when registered', async () => {
    const t = await createTestTenant(app);
    const client = await registeredClient(t, 'admin');
    const good = await assertion(client.clientKey);
    const wrongGrant = await tokenRequest({ grant_type: 'password', client_assertion_type: JWT_BEARER, client_assertion: good });
    assert.equal(wrongGrant.status, 400);
    assert.equal(wrongGrant.body.error, 'unsupported_grant_type');
    // RFC 6749 §5.2: a grant_type missing (or empty) is a parameter missing, not a grant this server does not serve.
    for (const grantType of [undefined, '']) {
      const noGrant = await tokenRequest({
        ...(grantType === undefined ? {} : { grant_type: grantType }),
        scope: 'system/Patient.rs',
        client_assertion_type: JWT_BEARER,
        client_assertion: good,
      });
      assert.equal(noGrant.status, 400, JSON.stringify(noGrant.body));
      assert.equal(noGrant.body.error, 'invalid_request');
      assert.match(noGrant.body.error_description, /grant_type/);
      assert.equal(noGrant.headers['cache-control'], 'no-store');
    }
    const noScope = await tokenRequest({
      grant_type: 'client_credentials',
      client_assertion_type: JWT_BEARER,
      client_assertion: good,
    });
    assert.equal(noScope.body.error, 'invalid_request');
    const noAssertion = await tokenRequest({ grant_type: 'client_credentials', scope: 'system/Patient.rs' });
    assert.equal(noAssertion.body.error, 'invalid_request');
    const json = await app.server.inject({
      method: 'POST',
      url: '/auth/smart/token',
      payload: { grant_type: 'client_credentials' },
    });
    assert.equal(json.statusCode, 400);
    assert.equal(json.json().error, 'invalid_request');

    const bad = async (key: Record<string, unknown>, message: RegExp) => {
      const response = await t.api.patch(`${t.admin}/api-clients/${client.id}`, { jwks: { keys: [key] } });
      assert.equal(response.status, 400, response.text);
      assert.match(JSON.stringify(response.body), message);
    };
    const privateJwk = { ...(await exportJWK(es384.privateKey)), kid: 'p' };
    await bad(privateJwk, /private key/);
    await bad({ ...(await exportJWK((await generateKeyPair('ES256')).publicKey)), kid: 'small' }, /P-384/);
    await bad({ ...(await publicJwk(es384, 'es')), alg: 'RS384' }, /signs ES384/);
    await bad({ kty: 'OKP', kid: 'x' }, /kty/);
    const removed = await t.api.patch(`${t.admin}/api-clients/${client.id}`, { jwks: null });
    assert.equal(removed.status, 200);
    assert.equal(removed.body.jwks, null);
  });
});
