import { createHash } from 'node:crypto';
import { isIPv4, isIPv6 } from 'node:net';

/**
 * Who a counter counts. Subjects are part of the stored key, so they are canonical (two spellings
 * of one caller share a bucket) and never hold a secret: a token is counted by its id.
 */
export type RateLimitSubject = string & { readonly __rateLimitSubject: true };

function subject(value: string): RateLimitSubject {
  return value as RateLimitSubject;
}

/** A parsed IP address: IPv4-mapped IPv6 is reported as IPv4, a zone index is dropped. */
export type ParsedIp =
  { family: 'ipv4'; address: string } | { family: 'ipv6'; address: string; groups: number[] };

/** Parses an IP address, or returns undefined when `ip` is not one. */
export function parseIp(ip: string): ParsedIp | undefined {
  const address = ip.trim();
  if (isIPv4(address)) return { family: 'ipv4', address: canonicalIPv4(address) };
  // A zone index (`fe80::1%eth0`) names the local interface, not the peer.
  const bare = address.split('%', 1)[0] ?? '';
  if (!isIPv6(bare)) return undefined;
  const groups = ipv6Groups(bare);
  if (groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff) {
    const [high = 0, low = 0] = groups.slice(6);
    return { family: 'ipv4', address: `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}` };
  }
  return { family: 'ipv6', address: groups.map((group) => group.toString(16)).join(':'), groups };
}

/**
 * An IP address as a subject: IPv4-mapped IPv6 (`::ffff:1.2.3.4`) counts as its IPv4 address, and
 * an IPv6 address counts by its /64 prefix, since one end site usually holds a whole /64.
 */
export function ipSubject(ip: string): RateLimitSubject {
  const parsed = parseIp(ip);
  if (!parsed) throw new TypeError(`Not an IP address: ${JSON.stringify(ip)}`);
  if (parsed.family === 'ipv4') return subject(`ip:${parsed.address}`);
  return subject(
    `ip:${parsed.groups
      .slice(0, 4)
      .map((group) => group.toString(16))
      .join(':')}::/64`,
  );
}

function canonicalIPv4(address: string): string {
  return address
    .split('.')
    .map((octet) => String(Number(octet)))
    .join('.');
}

/** The eight 16-bit groups of a valid IPv6 address (without zone), `::` and a dotted tail expanded. */
function ipv6Groups(address: string): number[] {
  let text = address.toLowerCase();
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted?.[1]) {
    const [a = 0, b = 0, c = 0, d = 0] = dotted[1].split('.').map(Number);
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const parse = (part: string): number[] => (part === '' ? [] : part.split(':').map((g) => parseInt(g, 16)));
  const left = parse(head);
  if (tail === undefined) return left;
  const right = parse(tail);
  return [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
}

/**
 * An e-mail address as a subject: trimmed, lower-cased, plus-addressing folded (`a+x@b` counts as
 * `a@b`, so tags cannot multiply a per-address limit). Stored as a digest: counters need no address.
 */
export function emailSubject(email: string): RateLimitSubject {
  const address = email.trim().toLowerCase();
  if (address === '') throw new TypeError('An e-mail subject needs an address');
  const at = address.lastIndexOf('@');
  const local = at < 0 ? address : address.slice(0, at);
  const plus = local.indexOf('+');
  const folded = plus > 0 ? `${local.slice(0, plus)}${address.slice(at)}` : address;
  return subject(`email:${createHash('sha256').update(folded).digest('base64url').slice(0, 22)}`);
}

// Ids are short opaque identifiers (bigint, UUID); anything else is probably a secret passed by mistake.
const ID = /^[A-Za-z0-9_.-]{1,64}$/;

function idSubject(kind: string, id: string | number | bigint): RateLimitSubject {
  const text = String(id);
  if (!ID.test(text)) throw new TypeError(`A ${kind} subject needs an id (1-64 of [A-Za-z0-9_.-])`);
  return subject(`${kind}:${text}`);
}

/** A user account (Mastodon's "account", the events service's user) by its id. */
export function userSubject(id: string | number | bigint): RateLimitSubject {
  return idSubject('user', id);
}

/** An access token by its database id, never by its value. */
export function tokenSubject(id: string | number | bigint): RateLimitSubject {
  return idSubject('token', id);
}
