// Origin checks for incoming activities (CVE-2024-23832: an activity signed by one server must not
// speak for objects of another; CVE-2023-42451: host look-alikes must not pass as the same host).

export type OriginCheck = { ok: true } | { ok: false; reason: string };

/**
 * Parses an http(s) URL and refuses forms that are never legitimate ids but are known spoofing
 * tools: userinfo (`https://good.example@evil.example/`) and a trailing-dot host (`good.example.`,
 * the same DNS name as `good.example` but a different string to domain blocks and storage).
 */
function parseId(value: string | URL): URL | null {
  const text = String(value);
  if (!URL.canParse(text)) return null;
  const url = new URL(text);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
  if (url.username !== '' || url.password !== '') return null;
  if (url.hostname === '' || url.hostname.endsWith('.')) return null;
  return url;
}

/**
 * Same scheme and same host, compared after WHATWG URL normalization (lower case, IDNA to punycode,
 * percent-decoding, default port dropped). Anything unparseable is never the same origin.
 */
export function sameOrigin(a: string | URL, b: string | URL): boolean {
  const first = parseId(a);
  const second = parseId(b);
  return (
    first !== null && second !== null && first.protocol === second.protocol && first.host === second.host
  );
}

/**
 * Types whose object belongs to someone else: you follow, like, announce, block, flag, join or
 * invite to another actor's thing; Accept/Reject answer the other side's Follow/Join/Invite; Add and
 * Remove put things into a collection. Their embedded object is never authoritative: consumers use
 * only its id (re-fetching from its origin if they need content). Every other type (Create, Update,
 * Delete, Move and anything unknown) speaks for its object, so an embedded object's id must be on the
 * actor's origin. Undo speaks for the actor's own earlier activity, which is checked the same way.
 */
const FOREIGN_OBJECT_TYPES = new Set([
  'Follow',
  'Like',
  'Dislike',
  'EmojiReact',
  'Announce',
  'Block',
  'Flag',
  'Join',
  'Leave',
  'Invite',
  'Accept',
  'Reject',
  'TentativeAccept',
  'TentativeReject',
  'Add',
  'Remove',
  'Read',
  'View',
  'Ignore',
  'QuoteRequest',
]);

const MAX_UNDO_DEPTH = 3;

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function idOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (isObject(value) && typeof value.id === 'string') return value.id;
  return undefined;
}

function typesOf(value: JsonObject): string[] {
  const type = value.type;
  if (typeof type === 'string') return [type];
  return Array.isArray(type) ? type.filter((entry): entry is string => typeof entry === 'string') : [];
}

function refuse(reason: string): OriginCheck {
  return { ok: false, reason };
}

function check(activity: unknown, signerOwnerUri: string, depth: number): OriginCheck {
  if (!isObject(activity)) return refuse('Activity is not a JSON object');
  const actors = Array.isArray(activity.actor) ? activity.actor : [activity.actor];
  if (actors.length !== 1) return refuse('Activity must name exactly one actor');
  const actor = idOf(actors[0]);
  if (actor === undefined) return refuse('Activity has no actor');
  if (actor !== signerOwnerUri) return refuse("Activity actor does not match the signing key's owner");
  if (parseId(actor) === null) return refuse('Activity actor is not a valid http(s) URL');
  if (activity.id !== undefined && (typeof activity.id !== 'string' || !sameOrigin(activity.id, actor)))
    return refuse("Activity id is not on the actor's origin");

  const types = typesOf(activity);
  if (types.length > 0 && types.every((type) => FOREIGN_OBJECT_TYPES.has(type))) return { ok: true };
  const isUndo = types.includes('Undo');
  const objects = Array.isArray(activity.object) ? activity.object : [activity.object];
  for (const object of objects) {
    if (!isObject(object) || object.id === undefined) continue;
    // A `Member` (a membership) is its group's to describe, whichever side minted its id (the
    // reference names it by the joiner's Join): the group it is `object` of must be the actor's.
    const authority = typesOf(object).includes('Member') ? idOf(object.object) : idOf(object);
    if (typeof object.id !== 'string' || authority === undefined || !sameOrigin(authority, actor))
      return refuse("Embedded object is not on the actor's origin");
    if (isUndo && object.actor !== undefined) {
      if (depth >= MAX_UNDO_DEPTH) return refuse('Undo nests too deeply');
      const inner = check(object, signerOwnerUri, depth + 1);
      if (!inner.ok) return inner;
    }
  }
  return { ok: true };
}

/**
 * Checks that a verified signature may speak for this activity: the actor is the key's owner, and
 * the ids it vouches for live on the actor's origin (rule above `FOREIGN_OBJECT_TYPES`).
 */
export function checkActivityOrigin(activity: unknown, signerOwnerUri: string): OriginCheck {
  return check(activity, signerOwnerUri, 0);
}
