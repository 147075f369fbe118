import type { Actor } from '../actors/actor.types.js';
import { ACTIVITY_JSON } from './accept.negotiation.js';
import { imageMediaType } from './media-type.js';
import {
  REL_AVATAR,
  REL_PROFILE_PAGE,
  REL_SELF,
  REL_SUBSCRIBE,
  type Jrd,
  type WebFingerLink,
} from './webfinger.types.js';

/** What a `resource` parameter names: an account on some host, or a URL. */
export type WebFingerResource = { kind: 'acct'; username: string; host: string } | { kind: 'url'; url: URL };

/** Longer resources name nothing of ours; refuse them before touching the database. */
const MAX_RESOURCE_LENGTH = 2048;

/**
 * Parses `acct:name@host`, `acct:@name@host`, `name@host`, `@name@host` or an http(s) URL.
 * Returns null for anything else (another scheme, no name, no host).
 */
export function parseWebFingerResource(resource: string): WebFingerResource | null {
  const value = resource.trim();
  if (value.length === 0 || value.length > MAX_RESOURCE_LENGTH) return null;
  if (/^https?:\/\//i.test(value)) {
    try {
      return { kind: 'url', url: new URL(value) };
    } catch {
      return null;
    }
  }
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(value)?.[1];
  if (scheme !== undefined && scheme.toLowerCase() !== 'acct') return null;
  const account = value.replace(/^acct:/i, '').replace(/^@/, '');
  const at = account.lastIndexOf('@');
  if (at <= 0 || at === account.length - 1) return null;
  const username = account.slice(0, at);
  const host = account.slice(at + 1);
  if (/[\s/@?#]/.test(username) || /[\s/@?#]/.test(host)) return null;
  return { kind: 'acct', username, host: host.toLowerCase() };
}

export interface WebFingerOptions {
  /** The instance's domain as it appears in `acct:` URIs (with the port when it is not the default). */
  domain: string;
  /** The remote-follow template, with `{uri}` (events: `/interact?uri={uri}`; Mastodon `/authorize_interaction?uri={uri}`). */
  subscribeTemplate?: string;
  /** More links for this actor (the microblog's early-protocol updates-from, salmon, magic-public-key). */
  extraLinks?: (actor: Actor) => WebFingerLink[] | Promise<WebFingerLink[]>;
}

/**
 * The JRD of a local actor: subject `acct:name@domain`, aliases [profile page, actor id], then links in
 * Mastodon's order (profile page, self, the app's extra links, subscribe template, avatar).
 */
export async function buildWebFinger(actor: Actor, options: WebFingerOptions): Promise<Jrd> {
  const profile = actor.url ?? actor.uri;
  const links: WebFingerLink[] = [
    { rel: REL_PROFILE_PAGE, type: 'text/html', href: profile },
    { rel: REL_SELF, type: ACTIVITY_JSON, href: actor.uri },
    ...((await options.extraLinks?.(actor)) ?? []),
  ];
  if (options.subscribeTemplate) links.push({ rel: REL_SUBSCRIBE, template: options.subscribeTemplate });
  if (actor.avatarUrl) {
    const type = imageMediaType(actor.avatarUrl);
    links.push({ rel: REL_AVATAR, ...(type ? { type } : {}), href: actor.avatarUrl });
  }
  return {
    subject: `acct:${actor.username}@${options.domain}`,
    aliases: [...new Set([profile, actor.uri])],
    links,
  };
}
