import type { Logger } from '@agora/core';
import {
  REL_MAGIC_PUBLIC_KEY,
  REL_SALMON,
  REL_UPDATES_FROM,
  sanitizeRemoteHtml,
  type Actor,
  type Federation,
} from '@agora/federation';
import { NS } from './atom.js';
import { childOf, childrenOf, keyFromMagicPublicKey, parseXml, type XmlElement } from './magic-envelope.js';

// A feed's first page: a profile and twenty entries at most.
const MAX_FEED_BYTES = 256 * 1024;
const MAX_NAME_LENGTH = 100;

interface JrdLink {
  rel: string;
  href: string;
}

/**
 * An OStatus-only account from its WebFinger document (the early Mastodon / GNU social kind: links
 * `salmon`, `magic-public-key` and `updates-from`, no ActivityPub actor). Its Atom feed is read
 * through the guarded fetch for the profile (the feed's `<author>`) and its hub; the account is
 * stored with no inbox, its Salmon endpoint, hub and feed in `endpoints` and the magic key as its
 * public key. Null when the document is not such an account or does not hold together (the feed,
 * the author's id and the Salmon endpoint must be on the host that answered WebFinger).
 */
export async function resolveOStatusAccount(
  deps: { federation: Federation; logger: Logger },
  jrd: { links?: unknown[] },
  resource: string,
): Promise<Actor | null> {
  const address = /^acct:([^@\s/]+)@([^@\s/?#]+)$/i.exec(resource);
  if (!address) return null;
  const [, username, host] = address as unknown as [string, string, string];
  const domain = host.toLowerCase();
  const links = (Array.isArray(jrd.links) ? jrd.links : []).filter(
    (link): link is JrdLink =>
      typeof link === 'object' &&
      link !== null &&
      typeof (link as { rel?: unknown }).rel === 'string' &&
      typeof (link as { href?: unknown }).href === 'string',
  );
  const href = (rel: string) => links.find((link) => link.rel === rel)?.href ?? null;
  const salmon = httpUrlOn(href(REL_SALMON), domain);
  const feedUrl = httpUrlOn(href(REL_UPDATES_FROM), domain);
  const magic = href(REL_MAGIC_PUBLIC_KEY);
  const key = magic ? keyFromMagicPublicKey(magic) : null;
  if (!salmon || !feedUrl || !key) return null;

  let feed: XmlElement;
  try {
    const response = await deps.federation.fetch.get(feedUrl, {
      headers: { accept: 'application/atom+xml' },
      signed: false,
      maxBodyBytes: MAX_FEED_BYTES,
    });
    if (!response.ok) return null;
    feed = parseXml(response.text());
  } catch (error) {
    deps.logger.info({ feedUrl, err: error }, 'could not read the feed of an OStatus account');
    return null;
  }
  if (feed.namespaceURI !== NS.atom || feed.localName !== 'feed') return null;
  const author = childOf(feed, NS.atom, 'author');
  const uri = httpUrlOn(text(author, NS.atom, 'uri') ?? text(author, NS.atom, 'id'), domain);
  if (!author || !uri) return null;
  const feedLinks = childrenOf(feed, NS.atom, 'link');
  const hub = feedLinks.find((link) => link.getAttribute('rel') === 'hub')?.getAttribute('href') ?? null;
  const authorLinks = childrenOf(author, NS.atom, 'link');
  const authorLink = (rel: string) =>
    authorLinks.find((link) => link.getAttribute('rel') === rel)?.getAttribute('href') ?? null;
  const summary = text(author, NS.poco, 'note') ?? text(author, NS.atom, 'summary') ?? '';
  return deps.federation.remoteActors.store({
    type: 'Person',
    username,
    domain,
    uri,
    url: httpUrlOn(authorLink('alternate'), domain) ?? uri,
    inboxUrl: null,
    outboxUrl: null,
    sharedInboxUrl: null,
    followersUrl: null,
    followingUrl: null,
    endpoints: {
      salmon,
      atom: feedUrl,
      ...(hub && httpUrl(hub) ? { hub: httpUrl(hub) as string } : {}),
    },
    publicKeyPem: key.export({ format: 'pem', type: 'spki' }).toString(),
    keyId: null,
    displayName: (text(author, NS.poco, 'displayName') ?? '').slice(0, MAX_NAME_LENGTH),
    summary: sanitizeRemoteHtml(summary),
    avatarUrl: httpUrl(authorLink('avatar')),
  });
}

function text(parent: XmlElement | null, ns: string, name: string): string | null {
  if (!parent) return null;
  const value = childOf(parent, ns, name)?.textContent?.trim();
  return value ? value : null;
}

function httpUrl(value: string | null): string | null {
  if (!value) return null;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : null;
  } catch {
    return null;
  }
}

/** An http(s) URL on `host` (the host that answered WebFinger, port included), else null. */
function httpUrlOn(value: string | null, host: string): string | null {
  const url = httpUrl(value);
  return url && new URL(url).host.toLowerCase() === host ? url : null;
}
