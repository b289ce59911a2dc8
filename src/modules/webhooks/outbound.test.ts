import assert from 'node:assert/strict';
import { test } from 'node:test';
import { addressPolicy, isPublicAddress } from '../../providers/network.ts';
import { startReceiver } from '../../test/receiver.ts';
import { checkedUrl, OutboundError, post } from './outbound.ts';

/** Loopback is private, so these tests name which loopback addresses their policy lets through. */
const only =
  (...addresses: string[]) =>
  (address: string) =>
    addresses.includes(address);

async function failure(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof OutboundError, String(error));
    return error.code;
  }
  assert.fail('expected the post to fail');
}

test('only global unicast addresses are public, IPv4-mapped IPv6 judged as its IPv4', () => {
  for (const address of ['8.8.8.8', '2606:4700::1111', '::ffff:8.8.8.8']) assert.ok(isPublicAddress(address), address);
  for (const address of [
    '127.0.0.1',
    '10.0.0.1',
    '172.16.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '::1',
    '::',
    'fe80::1',
    'fc00::1',
    '::ffff:127.0.0.1',
    '::ffff:169.254.169.254',
    'not-an-address',
  ]) {
    assert.ok(!isPublicAddress(address), address);
  }
  assert.ok(addressPolicy(true)('127.0.0.1'));
  assert.ok(!addressPolicy(false)('127.0.0.1'));
});

test('only http(s) URLs without credentials; an IP literal host is judged before any connection', () => {
  for (const url of ['ftp://a.example/', 'file:///etc/passwd', 'javascript:alert(1)', 'https://u:p@a.example/', '//a.example']) {
    assert.throws(
      () => checkedUrl(url, isPublicAddress),
      (error: OutboundError) => error.code === 'URL_NOT_ALLOWED',
      url,
    );
  }
  for (const url of [
    'http://127.0.0.1/',
    'http://[::1]:8080/',
    'http://169.254.169.254/latest/meta-data',
    'http://[::ffff:10.0.0.1]/',
  ]) {
    assert.throws(
      () => checkedUrl(url, isPublicAddress),
      (error: OutboundError) => error.code === 'ADDRESS_NOT_ALLOWED',
      url,
    );
  }
  assert.equal(checkedUrl('https://hooks.example/in?x=1', isPublicAddress).hostname, 'hooks.example');
});

test('a redirect is followed with the same POST, and checked again: to an address not allowed it stops', async () => {
  const receiver = await startReceiver();
  receiver.answer({ status: 308, location: '/moved' }, 201);
  const answer = await post(`${receiver.url}/first`, {
    headers: { 'content-type': 'application/json' },
    body: '{"a":1}',
    timeoutMs: 5000,
    allowed: only('127.0.0.1'),
  });
  assert.equal(answer.status, 201);
  assert.deepEqual(
    receiver.received.map((request) => [request.path, request.body]),
    [
      ['/first', '{"a":1}'],
      ['/moved', '{"a":1}'],
    ],
  );

  // 127.0.0.2 is loopback too (all of 127/8 is), but this policy does not allow it.
  receiver.answer({ status: 302, location: `http://127.0.0.2:${receiver.port}/elsewhere` });
  const code = await failure(
    post(`${receiver.url}/again`, { headers: {}, body: '{}', timeoutMs: 5000, allowed: only('127.0.0.1') }),
  );
  assert.equal(code, 'ADDRESS_NOT_ALLOWED');
  assert.ok(!receiver.received.some((request) => request.path === '/elsewhere'));

  // A name is resolved by the socket's own lookup, and refused when an address it resolves to is not allowed.
  assert.equal(
    await failure(post(`http://localhost:${receiver.port}/named`, { headers: {}, body: '{}', timeoutMs: 5000, allowed: only() })),
    'ADDRESS_NOT_ALLOWED',
  );
  assert.ok(!receiver.received.some((request) => request.path === '/named'));
});

test('redirects are followed five times at most; a receiver that hangs is a TIMEOUT; a closed port CONNECTION_FAILED', async () => {
  const receiver = await startReceiver({ status: 307, location: '/loop' });
  assert.equal(
    await failure(post(`${receiver.url}/loop`, { headers: {}, body: '{}', timeoutMs: 5000, allowed: () => true })),
    'TOO_MANY_REDIRECTS',
  );
  assert.equal(receiver.received.length, 6);
  receiver.otherwise({ status: 200, delayMs: 2000 });
  assert.equal(
    await failure(post(`${receiver.url}/slow`, { headers: {}, body: '{}', timeoutMs: 200, allowed: () => true })),
    'TIMEOUT',
  );
  assert.equal(
    await failure(post('http://127.0.0.1:9/closed', { headers: {}, body: '{}', timeoutMs: 5000, allowed: () => true })),
    'CONNECTION_FAILED',
  );
});
