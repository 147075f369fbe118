import { ACTOR_TYPES, type ActorField, type ActorType } from './actor.types.js';
import type { RemoteActorInput } from './actor.store.js';

export type ParsedActor = { ok: true; actor: RemoteActorInput } | { ok: false; reason: string };

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const str = (value: unknown): string | null => (typeof value === 'string' && value.length > 0 ? value : null);

/** A URL-valued property given as a string, an object with `id`/`href`/`url`, or a list of those. */
function urlOf(value: unknown): string | null {
  if (Array.isArray(value)) return urlOf(value[0]);
  if (typeof value === 'string') return httpUrl(value);
  if (isObject(value)) return urlOf(value.href ?? value.id ?? value.url);
  return null;
}

function httpUrl(value: string): string | null {
  if (!URL.canParse(value)) return null;
  const url = new URL(value);
  return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : null;
}

const sameHost = (a: string, b: string) => new URL(a).host === new URL(b).host;

/**
 * Reads a remote actor document into the actor model. Untrusted input: the id must be an http(s)
 * URL, the key must belong to the actor, every URL must be http(s), text is passed through
 * `sanitize` (HTML) or stripped of control characters (names), and lengths are capped.
 */
export function parseActorDocument(document: unknown, sanitize: (html: string) => string): ParsedActor {
  if (!isObject(document)) return { ok: false, reason: 'Not a JSON object' };
  const id = typeof document.id === 'string' ? httpUrl(document.id) : null;
  if (!id) return { ok: false, reason: 'The actor has no http(s) id' };
  const type = document.type;
  if (typeof type !== 'string' || !(ACTOR_TYPES as readonly string[]).includes(type)) {
    return { ok: false, reason: `Not an actor type: ${String(type).slice(0, 40)}` };
  }
  const username = str(document.preferredUsername);
  if (!username || username.length > 255 || /[\s@/]/.test(username)) {
    return { ok: false, reason: 'The actor has no usable preferredUsername' };
  }
  const inboxUrl = urlOf(document.inbox);
  if (!inboxUrl) return { ok: false, reason: 'The actor has no inbox' };
  let publicKeyPem: string | null = null;
  let keyId: string | null = null;
  const key = Array.isArray(document.publicKey) ? document.publicKey[0] : document.publicKey;
  if (isObject(key)) {
    const owner = urlOf(key.owner);
    if (owner !== null && owner !== id)
      return { ok: false, reason: 'The public key belongs to another actor' };
    keyId = typeof key.id === 'string' ? httpUrl(key.id) : null;
    if (keyId && !sameHost(keyId, id)) return { ok: false, reason: 'The key id is on another host' };
    publicKeyPem = str(key.publicKeyPem);
    if (publicKeyPem && (publicKeyPem.length > 10_000 || !publicKeyPem.includes('PUBLIC KEY'))) {
      return { ok: false, reason: 'The public key is not a PEM public key' };
    }
  }
  const endpoints = isObject(document.endpoints) ? document.endpoints : {};
  const extra: Record<string, string> = {};
  for (const name of [
    'featured',
    'featuredTags',
    'members',
    'resources',
    'posts',
    'events',
    'discussions',
    'todos',
  ]) {
    const url = urlOf(document[name] ?? endpoints[name]);
    if (url) extra[name] = url;
  }
  const fields: ActorField[] = (Array.isArray(document.attachment) ? document.attachment : [])
    .filter((item): item is Json => isObject(item) && item.type === 'PropertyValue')
    .slice(0, 16)
    .map((item) => ({
      name: plain(String(item.name ?? ''), 255),
      value: sanitize(String(item.value ?? '').slice(0, 2_048)),
      verifiedAt: null,
    }));
  return {
    ok: true,
    actor: {
      type: type as ActorType,
      username,
      domain: new URL(id).host,
      uri: id,
      url: urlOf(document.url),
      inboxUrl,
      outboxUrl: urlOf(document.outbox),
      sharedInboxUrl: urlOf(endpoints.sharedInbox),
      followersUrl: urlOf(document.followers),
      followingUrl: urlOf(document.following),
      endpoints: extra,
      publicKeyPem,
      keyId,
      displayName: plain(str(document.name) ?? '', 255),
      summary: sanitize((str(document.summary) ?? '').slice(0, 20_000)),
      fields,
      manuallyApprovesFollowers: document.manuallyApprovesFollowers === true,
      discoverable: document.discoverable === true,
      indexable: document.indexable === true,
      avatarUrl: urlOf(document.icon),
      headerUrl: urlOf(document.image),
      alsoKnownAs: (Array.isArray(document.alsoKnownAs) ? document.alsoKnownAs : [])
        .map((value) => urlOf(value))
        .filter((value): value is string => value !== null)
        .slice(0, 20),
    },
  };
}

/** Text shown verbatim: no control characters, bounded length. */
function plain(value: string, max: number): string {
  // eslint-disable-next-line no-control-regex
  return value.replace(/[\u0000-\u001f\u007f]/g, '').slice(0, max);
}
