import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;
type Cidr = [Address, number];

// Mastodon's PrivateAddressCheck list plus the private/loopback/link-local ranges Ruby's IPAddr adds.
const BLOCKED_IPV4 = [
  '0.0.0.0/8', // "this network", 0.0.0.0 reaches the local host
  '10.0.0.0/8',
  '100.64.0.0/10', // carrier-grade NAT
  '127.0.0.0/8',
  '169.254.0.0/16', // link-local, cloud metadata (169.254.169.254)
  '172.16.0.0/12',
  '192.0.0.0/24', // IETF protocol assignments
  '192.0.2.0/24', // TEST-NET-1
  '192.88.99.0/24', // 6to4 relay anycast
  '192.168.0.0/16',
  '198.18.0.0/15', // benchmarking
  '198.51.100.0/24', // TEST-NET-2
  '203.0.113.0/24', // TEST-NET-3
  '224.0.0.0/4', // multicast
  '240.0.0.0/4', // reserved
  '255.255.255.255/32',
].map(parseCidr);

const BLOCKED_IPV6 = [
  '::/128',
  '::1/128',
  '64:ff9b::/96', // NAT64: refused whole, like Mastodon (allow-list the CIDR on NAT64-only hosts)
  '64:ff9b:1::/48', // local-use NAT64 (RFC 8215)
  '100::/64', // discard prefix
  '2001::/32', // Teredo
  '2001:10::/28', // ORCHID (deprecated)
  '2001:20::/28', // ORCHIDv2
  '2001:db8::/32', // documentation
  '2002::/16', // 6to4
  'fc00::/7', // unique local
  'fe80::/10', // link-local
  'ff00::/8', // multicast
].map(parseCidr);

// IPv6 forms that carry an IPv4 address in their last 32 bits: the IPv4 inside is what gets reached.
const IPV4_CARRYING_IPV6 = [
  '::ffff:0:0/96', // IPv4-mapped
  '::/96', // IPv4-compatible (the bypass fixed in Mastodon 4.6.4)
  '::ffff:0:0:0/96', // IPv4-translated (RFC 6145)
].map(parseCidr);

function parseCidr(cidr: string): Cidr {
  return ipaddr.parseCIDR(cidr);
}

function within(address: Address, [network, bits]: Cidr): boolean {
  return address.kind() === network.kind() && address.match(network, bits);
}

/** Strict parse: only the canonical textual forms `net.isIP` accepts (no `0x7f.1`), zone ids dropped. */
export function parseAddress(text: string): Address | null {
  const bare = text.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (isIP(bare) === 0) return null;
  return ipaddr.parse(bare);
}

/** The IPv4 address an IPv6 address embeds (mapped, compatible, translated), else the address itself. */
export function unwrapAddress(address: Address): Address {
  if (address.kind() !== 'ipv6' || !IPV4_CARRYING_IPV6.some((cidr) => within(address, cidr))) return address;
  const bytes = address.toByteArray().slice(12);
  return ipaddr.fromByteArray(bytes);
}

/**
 * Why `address` must not be connected to (the special-use range it falls in), or null when it is a
 * public unicast address. Unparseable input is refused.
 */
export function forbiddenRange(text: string): string | null {
  const parsed = parseAddress(text);
  if (!parsed) return 'invalid address';
  for (const candidate of new Set([parsed, unwrapAddress(parsed)])) {
    const list = candidate.kind() === 'ipv4' ? BLOCKED_IPV4 : BLOCKED_IPV6;
    const hit = list.find((cidr) => within(candidate, cidr));
    if (hit) return `${hit[0].toString()}/${hit[1]}`;
  }
  return null;
}

/**
 * Exceptions to the private-address rule, for tests and private deployments. Entries are
 * `host`, `host:port` (compared with the URL's host, literal IPs normalized) or CIDRs
 * (compared with the address actually connected to, and with the IPv4 inside it).
 */
export class PrivateHostAllowList {
  private readonly hosts = new Set<string>();
  private readonly hostPorts = new Set<string>();
  private readonly cidrs: Cidr[] = [];

  constructor(entries: readonly string[] = []) {
    for (const raw of entries) {
      const entry = raw.trim().toLowerCase();
      if (entry.includes('/')) {
        if (!ipaddr.isValidCIDR(entry)) throw new TypeError(`Invalid CIDR in allowPrivateHosts: ${raw}`);
        this.cidrs.push(ipaddr.parseCIDR(entry));
        continue;
      }
      const hostPort = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(entry);
      if (hostPort?.[1] && hostPort[2]) {
        this.hostPorts.add(`${normalizeHost(hostPort[1])}:${Number(hostPort[2])}`);
      } else {
        this.hosts.add(normalizeHost(entry));
      }
    }
  }

  get isEmpty(): boolean {
    return this.hosts.size === 0 && this.hostPorts.size === 0 && this.cidrs.length === 0;
  }

  allows(host: string, port: number, address: string): boolean {
    const name = normalizeHost(host);
    if (this.hosts.has(name) || this.hostPorts.has(`${name}:${port}`)) return true;
    const parsed = parseAddress(address);
    if (!parsed) return false;
    const forms = [parsed, unwrapAddress(parsed)];
    return this.cidrs.some((cidr) => forms.some((form) => within(form, cidr)));
  }
}

/** Lower case, no trailing dot, no IPv6 brackets, IP literals in one canonical form. */
export function normalizeHost(host: string): string {
  const bare = host
    .trim()
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');
  const parsed = parseAddress(bare);
  return parsed ? parsed.toString() : bare;
}
