import { lookup as dnsLookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/**
 * Where a webhook may be sent (docs/decisions/0026-push.md, the SSRF rule). A webhook makes this
 * server send requests to addresses someone else typed: unchecked, it would reach what only the
 * server can reach (a database's port, a cloud's metadata service at 169.254.169.254, an admin
 * page on loopback). So an endpoint must be `https://`, and every address its name resolves to
 * must be public; both checked when it is registered and again at each delivery, after the name
 * is resolved, and the delivery connects to the address it checked (a name that resolves to a
 * public address for the check and to a private one for the connection, DNS rebinding, meets the
 * address checked). WEBHOOK_ALLOW_PRIVATE=1 allows plain http and every address.
 */

export class TargetRefused extends Error {
  override name = 'TargetRefused';
}

/** The longest endpoint address taken. */
export const MAX_URL_LENGTH = 2000;

/**
 * Addresses that are not public: loopback, private, link-local, multicast, reserved, documentation,
 * and IPv6 forms that carry IPv4 ones. One list per family: a BlockList checks an IPv4 address
 * against its IPv6 rules too, as the IPv4-mapped address, which ::ffff:0:0/96 would refuse.
 */
const NOT_PUBLIC_V4 = new BlockList();
const NOT_PUBLIC_V6 = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  NOT_PUBLIC_V4.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 96], // unspecified, loopback, IPv4-compatible
  ['::ffff:0:0', 96], // IPv4-mapped: the IPv4 address behind it is what is reached
  ['64:ff9b::', 96], // NAT64: likewise
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001::', 23], // IETF protocol assignments (Teredo, benchmarking, …)
  ['2001:db8::', 32],
  ['2002::', 16], // 6to4: an IPv4 address inside
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10],
  ['ff00::', 8], // multicast
] as const) {
  NOT_PUBLIC_V6.addSubnet(net, prefix, 'ipv6');
}

export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  return family === 4 ? !NOT_PUBLIC_V4.check(address, 'ipv4') : !NOT_PUBLIC_V6.check(address, 'ipv6');
}

/** The address an endpoint's name resolved to, as connected to. */
export interface Target {
  readonly url: URL;
  readonly address: string;
  readonly family: 4 | 6;
}

export type Lookup = (hostname: string) => Promise<ReadonlyArray<{ readonly address: string; readonly family: number }>>;

export const systemLookup: Lookup = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/** The address as typed, checked for its form only (no name is resolved). */
export function parseEndpointUrl(text: string, allowPrivate: boolean): URL {
  const trimmed = text.trim();
  if (trimmed === '') throw new TargetRefused('an address is required');
  if (trimmed.length > MAX_URL_LENGTH) throw new TargetRefused(`the address is longer than ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    throw new TargetRefused('not an address (https://…)');
  }
  if (url.protocol !== 'https:' && !(allowPrivate && url.protocol === 'http:')) throw new TargetRefused('the address must start with https://');
  if (url.username !== '' || url.password !== '') throw new TargetRefused('the address may not hold a user name or password');
  if (url.hash !== '' || trimmed.includes('#')) throw new TargetRefused('the address may not hold a fragment (#…)');
  if (url.hostname === '') throw new TargetRefused('the address has no host');
  return url;
}

/**
 * Resolves the endpoint's host and checks every address it resolves to (one that is not public
 * refuses the endpoint, even beside public ones: the connection could meet either). Returns the
 * first address: the one to connect to.
 */
export async function resolveTarget(url: URL, allowPrivate: boolean, lookup: Lookup = systemLookup): Promise<Target> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let found: ReadonlyArray<{ readonly address: string; readonly family: number }>;
  if (isIP(host) !== 0) {
    found = [{ address: host, family: isIP(host) }];
  } else {
    try {
      found = await lookup(host);
    } catch {
      throw new TargetRefused(`the name ${host} does not resolve`);
    }
  }
  const first = found[0];
  if (!first) throw new TargetRefused(`the name ${host} does not resolve`);
  if (!allowPrivate) {
    const inner = found.find((a) => !isPublicAddress(a.address));
    if (inner) throw new TargetRefused(`${host === inner.address ? inner.address : `${host} resolves to ${inner.address}, which`} is not a public address (loopback, private, link-local, multicast or reserved)`);
  }
  return { url, address: first.address, family: first.family === 6 ? 6 : 4 };
}
