/** The ActivityStreams actor types both services know. */
export const ACTOR_TYPES = ['Person', 'Group', 'Application', 'Organization', 'Service'] as const;
export type ActorType = (typeof ACTOR_TYPES)[number];

/** A profile metadata pair (ActivityPub `attachment` PropertyValue; Mastodon `fields`). */
export interface ActorField {
  name: string;
  /** HTML. */
  value: string;
  verifiedAt: string | null;
}

/** The URLs an actor is reached at; stored for local actors too so delivery treats both alike. */
export interface ActorUrls {
  /** The ActivityPub id. */
  uri: string;
  /** The HTML profile page. */
  url: string | null;
  inboxUrl: string | null;
  outboxUrl: string | null;
  sharedInboxUrl: string | null;
  followersUrl: string | null;
  followingUrl: string | null;
  /** Further collections by name (e.g. a group's `members`, `events`; Mastodon's `featured`). */
  endpoints: Record<string, string>;
}

/** One actor, local (`domain` null) or remote. Never carries the private key. */
export interface Actor extends ActorUrls {
  id: string;
  type: ActorType;
  /** `preferredUsername`. */
  username: string;
  domain: string | null;
  local: boolean;
  displayName: string;
  /** HTML. */
  summary: string;
  fields: ActorField[];
  publicKeyPem: string | null;
  keyId: string | null;
  manuallyApprovesFollowers: boolean;
  discoverable: boolean;
  indexable: boolean;
  avatarUrl: string | null;
  headerUrl: string | null;
  alsoKnownAs: string[];
  movedToActorId: string | null;
  /** The local account owning this actor, if any. */
  userId: string | null;
  followersCount: number;
  followingCount: number;
  statusesCount: number;
  lastStatusAt: Date | null;
  suspended: boolean;
  suspendedAt: Date | null;
  silencedAt: Date | null;
  /** When a remote actor's document was last fetched. */
  fetchedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

/** Builds a local actor's URLs from its name and type; each app has its own layout. */
export type ActorUrlScheme = (actor: { type: ActorType; username: string }) => ActorUrls;

/** `name@domain` for remote actors, `name` for local ones (Mastodon's `acct`). */
export function acctOf(actor: Pick<Actor, 'username' | 'domain'>): string {
  return actor.domain === null ? actor.username : `${actor.username}@${actor.domain}`;
}

/**
 * The account an address names (the inverse of `acctOf`): `name`, `@name`, `name@domain`,
 * `@name@domain`, with or without `acct:`, white space around ignored. `domain` is null for a
 * local account (none given, or `localDomain` in any case), else lower-cased. Null when there is
 * no name. Lookups by name use it; whether the remote account is fetched is the caller's choice.
 */
export function parseAcct(
  address: string,
  localDomain: string,
): { username: string; domain: string | null } | null {
  const [username = '', domain] = address
    .trim()
    .replace(/^acct:/i, '')
    .replace(/^@/, '')
    .split('@', 2);
  if (username === '') return null;
  const local = domain === undefined || domain.toLowerCase() === localDomain.toLowerCase();
  return { username, domain: local ? null : domain.toLowerCase() };
}
