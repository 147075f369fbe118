import type { Role } from '@agora/auth';
import { acctOf, type Actor } from '@agora/federation';
import type { AccountView, CredentialView } from '../modules/accounts/account.service.js';

/** Where clients find the images of accounts that have none (served by the accounts module). */
export const MISSING_AVATAR_PATH = '/avatars/original/missing.png';
export const MISSING_HEADER_PATH = '/headers/original/missing.png';

/** Local copies of a remote account's images (remote-media module); null or absent: none yet. */
export interface CachedAccountImages {
  avatar: string | null;
  header: string | null;
}

/** What the serializer reads: the account, and for a remote one the local copies of its images. */
export type SerializableAccount = AccountView & { images?: CachedAccountImages };

export interface AccountFieldJson {
  name: string;
  /** HTML. */
  value: string;
  verified_at: string | null;
}

export interface AccountRoleJson {
  id: string;
  name: string;
  color: string;
}

/** Mastodon's Account entity (4.x). */
export interface AccountJson {
  id: string;
  username: string;
  acct: string;
  display_name: string;
  locked: boolean;
  bot: boolean;
  discoverable: boolean | null;
  indexable: boolean;
  group: boolean;
  created_at: string;
  note: string;
  url: string | null;
  uri: string;
  avatar: string;
  avatar_static: string;
  header: string;
  header_static: string;
  /** Alt text of the images (4.6); none is kept yet. */
  avatar_description: string;
  header_description: string;
  followers_count: number;
  following_count: number;
  statuses_count: number;
  last_status_at: string | null;
  hide_collections: boolean | null;
  /** Profile tabs the owner shows (4.6): every tab, as the reference's defaults. */
  show_media: boolean;
  show_media_replies: boolean;
  show_featured: boolean;
  /** Who may feature the account in a collection (4.6); collections do not exist here, so nobody. */
  feature_approval: { automatic: string[]; manual: string[]; current_user: string };
  noindex?: boolean;
  emojis: never[];
  roles: AccountRoleJson[];
  fields: AccountFieldJson[];
  suspended?: true;
  limited?: true;
}

/** The owner's role (CredentialAccount `role`); `permissions` is Mastodon's bit field as a string. */
export interface CredentialRoleJson {
  id: string;
  name: string;
  permissions: string;
  color: string;
  highlighted: boolean;
}

export interface CredentialAccountJson extends AccountJson {
  source: {
    privacy: string;
    sensitive: boolean;
    language: string | null;
    note: string;
    fields: AccountFieldJson[];
    follow_requests_count: number;
    hide_collections: boolean;
    /** The seed's `filtered_languages` (an Agora addition; Mastodon clients ignore it). */
    filtered_languages: string[];
    discoverable: boolean;
    indexable: boolean;
    attribution_domains: string[];
  };
  role: CredentialRoleJson;
}

// Mastodon's default roles: everyone may invite (1 << 16); moderators see the dashboard, audit log,
// reports, users and taxonomies; the administrator bit (1 << 0) grants everything.
const ROLES: Record<Role, CredentialRoleJson> = {
  USER: { id: '-99', name: '', permissions: '65536', color: '', highlighted: false },
  MODERATOR: { id: '1', name: 'Moderator', permissions: '1308', color: '', highlighted: true },
  ADMINISTRATOR: { id: '2', name: 'Admin', permissions: '1', color: '', highlighted: true },
};

/** The public JSON of an account; `publicUrl` makes the default image URLs absolute. */
export function serializeAccount(view: SerializableAccount, publicUrl: string): AccountJson {
  const { actor, role } = view;
  // A remote image is shown only as our copy of it (as Mastodon): remote URLs never reach clients.
  const images = actor.local ? { avatar: actor.avatarUrl, header: actor.headerUrl } : view.images;
  const avatar = images?.avatar ?? `${publicUrl}${MISSING_AVATAR_PATH}`;
  const header = images?.header ?? `${publicUrl}${MISSING_HEADER_PATH}`;
  const highlighted = role === null ? undefined : ROLES[role];
  const json: AccountJson = {
    id: actor.id,
    username: actor.username,
    acct: acctOf(actor),
    display_name: actor.displayName,
    locked: actor.manuallyApprovesFollowers,
    bot: actor.type === 'Service' || actor.type === 'Application',
    discoverable: actor.discoverable,
    indexable: actor.indexable,
    group: actor.type === 'Group',
    // The reference rounds to the day, so the exact sign-up time is not disclosed.
    created_at: midnightUtc(actor.createdAt),
    note: actor.summary,
    url: actor.url,
    uri: actor.uri,
    avatar,
    avatar_static: avatar,
    header,
    header_static: header,
    avatar_description: '',
    header_description: '',
    followers_count: actor.followersCount,
    following_count: actor.followingCount,
    statuses_count: actor.statusesCount,
    last_status_at: actor.lastStatusAt === null ? null : actor.lastStatusAt.toISOString().slice(0, 10),
    hide_collections: view.hideCollections,
    show_media: true,
    show_media_replies: true,
    show_featured: true,
    feature_approval: { automatic: [], manual: [], current_user: 'denied' },
    emojis: [],
    roles: highlighted?.highlighted
      ? [{ id: highlighted.id, name: highlighted.name, color: highlighted.color }]
      : [],
    fields: actor.fields.map(fieldJson),
  };
  if (actor.local) json.noindex = false;
  if (actor.suspended) json.suspended = true;
  if (actor.silencedAt !== null) json.limited = true;
  return json;
}

/** MutedAccount (GET /api/v1/mutes): the account and when its mute ends (null: never). */
export function serializeMutedAccount(
  view: SerializableAccount,
  muteExpiresAt: Date | null,
  publicUrl: string,
): AccountJson & { mute_expires_at: string | null } {
  return { ...serializeAccount(view, publicUrl), mute_expires_at: muteExpiresAt?.toISOString() ?? null };
}

/** verify_credentials / update_credentials: the account with its owner's `source` and `role`. */
export function serializeCredentialAccount(view: CredentialView, publicUrl: string): CredentialAccountJson {
  const { actor, settings } = view;
  return {
    ...serializeAccount(view, publicUrl),
    source: {
      privacy: settings.privacy,
      sensitive: settings.sensitive,
      language: settings.language,
      note: settings.noteSource,
      fields: settings.fieldsSource.map((field) => ({
        name: field.name,
        value: field.value,
        verified_at: null,
      })),
      follow_requests_count: view.followRequestsCount,
      hide_collections: settings.hideCollections,
      filtered_languages: settings.filteredLanguages,
      discoverable: actor.discoverable,
      indexable: actor.indexable,
      attribution_domains: [],
    },
    role: ROLES[view.role],
  };
}

function fieldJson(field: Actor['fields'][number]): AccountFieldJson {
  return { name: field.name, value: field.value, verified_at: field.verifiedAt };
}

function midnightUtc(date: Date): string {
  return `${date.toISOString().slice(0, 10)}T00:00:00.000Z`;
}
