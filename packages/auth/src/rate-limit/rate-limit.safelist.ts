import { BlockList } from 'node:net';
import { parseIp } from './rate-limit.subjects.js';

/** Mastodon never throttles loopback. We do by default: our own tests run on loopback. */
export const LOOPBACK_SAFELIST: readonly string[] = ['127.0.0.1', '::1'];

const SAFELIST_MEMO_MAX = 4096;

/**
 * Whether an address is on a safelist of addresses and CIDR ranges (`10.0.0.0/8`): requests from
 * there are never limited. An empty list matches nothing. Throws on an entry that is not an address.
 */
export function addressSafelist(entries: readonly string[]): (ip: string | undefined) => boolean {
  const list = blockList(entries);
  if (list === undefined) return () => false;
  // Answers by address string: parsing an address for the BlockList costs more than the lookup.
  const known = new Map<string, boolean>();
  return (ip) => {
    if (ip === undefined) return false;
    let listed = known.get(ip);
    if (listed === undefined) {
      listed = isListed(list, ip);
      if (known.size >= SAFELIST_MEMO_MAX) known.clear();
      known.set(ip, listed);
    }
    return listed;
  };
}

function blockList(entries: readonly string[]): BlockList | undefined {
  if (entries.length === 0) return undefined;
  const list = new BlockList();
  for (const entry of entries) {
    const [address = '', prefix] = entry.split('/');
    const parsed = parseIp(address);
    if (!parsed) throw new TypeError(`Rate-limit safelist: not an address or range: ${entry}`);
    if (prefix === undefined) list.addAddress(parsed.address, parsed.family);
    else list.addSubnet(parsed.address, Number(prefix), parsed.family);
  }
  return list;
}

function isListed(list: BlockList, ip: string): boolean {
  const parsed = parseIp(ip);
  return parsed !== undefined && list.check(parsed.address, parsed.family);
}
