import dns from 'node:dns/promises';
import ipaddr from 'ipaddr.js';

/**
 * Which network addresses Cairn's outbound connections may reach: webhooks, and outside services a
 * tenant points at (its own SMTP relay). A tenant must not make Cairn probe its own network, so by
 * default only public addresses are reached; an operator lifts that for receivers on the same
 * network.
 */

/** Only global unicast addresses (IPv4-mapped IPv6 judged as the IPv4 it maps). */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  }
  return parsed.range() === 'unicast';
}

/** Which addresses may be reached: public ones, or any when private networks are allowed. */
export type AddressPolicy = (address: string) => boolean;

const anyAddress: AddressPolicy = () => true;

export function addressPolicy(allowPrivate: boolean): AddressPolicy {
  return allowPrivate ? anyAddress : isPublicAddress;
}

/** A host name resolved to one address every address of which the policy allows (null: refused or unknown). */
export async function allowedAddress(host: string, allowed: AddressPolicy): Promise<string | null> {
  const addresses = ipaddr.isValid(host) ? [{ address: host }] : await dns.lookup(host, { all: true }).catch(() => []);
  if (addresses.length === 0 || !addresses.every((entry) => allowed(entry.address))) return null;
  return addresses[0]?.address ?? null;
}
