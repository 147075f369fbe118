import { isUuid } from '@agora/core';
import { idOf, sanitizeRemoteHtml } from '@agora/federation';
import { EVENT_CATEGORIES } from '../modules/config/event-categories.js';
import type { AddressInput } from '../modules/events/event.service.js';
import type { EventMetadataEntry } from '../modules/events/event-row.js';
import { eventTags } from '../modules/events/event-tags.js';
import { AS_PUBLIC, ONLINE_ADDRESS_NAME } from './event-objects.js';

/** An `Event` received from a peer, checked and cleaned: what is stored of it. */
export interface RemoteEventValues {
  url: string;
  uuid: string | null;
  title: string;
  /** Sanitized HTML. */
  description: string;
  beginsOn: Date;
  endsOn: Date | null;
  status: 'TENTATIVE' | 'CONFIRMED' | 'CANCELLED';
  visibility: 'PUBLIC' | 'UNLISTED';
  joinOptions: 'FREE' | 'RESTRICTED' | 'INVITE' | 'EXTERNAL';
  category: string;
  language: string;
  options: Record<string, unknown>;
  metadata: EventMetadataEntry[];
  externalParticipationUrl: string | null;
  onlineAddress: string | null;
  phoneAddress: string | null;
  tags: Array<{ slug: string; title: string }>;
  address: AddressInput | null;
  /** The actor ids named by the object: the organizer (`actor`) and `attributedTo`. */
  actorUri: string | null;
  attributedToUri: string | null;
  publishedAt: Date | null;
}

/** A `Note` received from a peer (a comment), checked and cleaned. */
export interface RemoteNoteValues {
  url: string;
  uuid: string | null;
  /** Sanitized HTML. */
  text: string;
  attributedToUri: string | null;
  inReplyTo: string | null;
  visibility: 'PUBLIC' | 'PRIVATE';
  publishedAt: Date | null;
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; reason: string };

const LANGUAGE_TAG = /^[a-z]{2,3}(-[a-z0-9]{1,8}){0,4}$/i;
const CATEGORIES: ReadonlySet<string> = new Set(EVENT_CATEGORIES.map((category) => category.id));
/** Remote texts are cut where ours are refused: a peer's longer title still shows. */
const TITLE_MAX = 200;
const TEXT_MAX = 100_000;
const SHORT_MAX = 2000;

/** The reference's Event document (not-shown.md §5) as stored values; drafts and malformed ones are refused. */
export function parseRemoteEvent(object: Record<string, unknown>): Parsed<RemoteEventValues> {
  const url = idOf(object);
  if (!url || !isWebUrl(url)) return fail('the event has no http(s) id');
  if (object.draft === true) return fail('drafts are never federated');
  const title = text(object.name)?.trim().slice(0, TITLE_MAX);
  if (!title) return fail('the event has no name');
  const beginsOn = date(object.startTime);
  if (!beginsOn) return fail('the event has no valid startTime');
  const endsOn = date(object.endTime);
  const content = text(object.content) ?? '';
  if (content.length > TEXT_MAX) return fail('the event content is too long');
  const description = sanitizeRemoteHtml(content);
  const status = (text(object.status) ?? text(object['ical:status']) ?? 'CONFIRMED').toUpperCase();
  const joinMode = (text(object.joinMode) ?? 'free').toUpperCase();
  const category = (text(object.category) ?? 'MEETING').toUpperCase();
  const attachments = list(object.attachment);
  const online = attachments.find(
    (item) => item.type === 'Link' && item.name === ONLINE_ADDRESS_NAME && typeof item.href === 'string',
  );
  const language = text(object.inLanguage);
  const hashtags = list(object.tag)
    .filter((tag) => tag.type === 'Hashtag' && typeof tag.name === 'string')
    .map((tag) => String(tag.name).replace(/^#/, ''))
    .filter((tag) => tag.length > 0 && tag.length <= 40);
  const externalUrl = text(object.externalParticipationUrl);
  return {
    ok: true,
    value: {
      url,
      uuid: typeof object.uuid === 'string' && isUuid(object.uuid) ? object.uuid.toLowerCase() : null,
      title,
      description,
      beginsOn,
      endsOn: endsOn && endsOn.getTime() >= beginsOn.getTime() ? endsOn : null,
      status: status === 'TENTATIVE' || status === 'CANCELLED' ? status : 'CONFIRMED',
      visibility: addressedToPublic(object.to) ? 'PUBLIC' : 'UNLISTED',
      joinOptions:
        joinMode === 'RESTRICTED' || joinMode === 'INVITE' || joinMode === 'EXTERNAL' ? joinMode : 'FREE',
      category: CATEGORIES.has(category) ? category : 'MEETING',
      language: language && LANGUAGE_TAG.test(language) ? language : 'und',
      options: remoteOptions(object),
      metadata: attachments.flatMap(metadataOf),
      externalParticipationUrl: externalUrl && isWebUrl(externalUrl) ? externalUrl.slice(0, SHORT_MAX) : null,
      onlineAddress: online && isWebUrl(String(online.href)) ? String(online.href).slice(0, SHORT_MAX) : null,
      phoneAddress: text(object.phoneAddress)?.slice(0, 200) ?? null,
      tags: eventTags(hashtags, ''),
      address: addressOf(object.location),
      actorUri: idOf(object.actor),
      attributedToUri: idOf(
        Array.isArray(object.attributedTo) ? object.attributedTo[0] : object.attributedTo,
      ),
      publishedAt: date(object.published),
    },
  };
}

/** A comment's Note: sanitized content, its parent, its visibility. */
export function parseRemoteNote(object: Record<string, unknown>): Parsed<RemoteNoteValues> {
  const url = idOf(object);
  if (!url || !isWebUrl(url)) return fail('the note has no http(s) id');
  const content = text(object.content) ?? '';
  if (content.length > TEXT_MAX) return fail('the note content is too long');
  const sanitized = sanitizeRemoteHtml(content.trim());
  if (sanitized.replace(/<[^>]*>/g, '').trim() === '') return fail('the note is empty');
  return {
    ok: true,
    value: {
      url,
      uuid: typeof object.uuid === 'string' && isUuid(object.uuid) ? object.uuid.toLowerCase() : null,
      text: sanitized,
      attributedToUri: idOf(
        Array.isArray(object.attributedTo) ? object.attributedTo[0] : object.attributedTo,
      ),
      inReplyTo: idOf(object.inReplyTo),
      visibility: addressedToPublic(object.to) || addressedToPublic(object.cc) ? 'PUBLIC' : 'PRIVATE',
      publishedAt: date(object.published),
    },
  };
}

function remoteOptions(object: Record<string, unknown>): Record<string, unknown> {
  const options: Record<string, unknown> = {};
  const maximum = object.maximumAttendeeCapacity;
  if (typeof maximum === 'number' && Number.isInteger(maximum) && maximum >= 0)
    options.maximumAttendeeCapacity = maximum;
  options.anonymousParticipation = object.anonymousParticipationEnabled === true;
  const moderation = text(object.repliesModerationOption)?.toUpperCase();
  options.commentModeration =
    moderation === 'ALLOW_ALL' || moderation === 'MODERATED' || moderation === 'CLOSED'
      ? moderation
      : object.commentsEnabled === false
        ? 'CLOSED'
        : 'ALLOW_ALL';
  const timezone = text(object.timezone);
  if (timezone && isTimezone(timezone)) options.timezone = timezone;
  options.isOnline = object.isOnline === true;
  return options;
}

/** PropertyValue attachments as metadata entries, typed as the reference types them. */
function metadataOf(item: Record<string, unknown>): EventMetadataEntry[] {
  if (item.type !== 'PropertyValue' || typeof item.propertyID !== 'string') return [];
  const key = item.propertyID.slice(0, 200);
  const value = item.value;
  if (typeof value === 'boolean') return [{ key, title: null, value: String(value), type: 'BOOLEAN' }];
  if (typeof value === 'number' && Number.isInteger(value))
    return [{ key, title: null, value: String(value), type: 'INTEGER' }];
  if (typeof value === 'number' || typeof value === 'string') {
    const title = text(item.name)?.slice(0, 200) ?? null;
    return [{ key, title, value: String(value).slice(0, SHORT_MAX), type: 'STRING' }];
  }
  return [];
}

/** A `Place` with its `PostalAddress`, texts kept as text (they are shown escaped). */
function addressOf(value: unknown): AddressInput | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const place = value as Record<string, unknown>;
  const postal = (typeof place.address === 'object' && place.address !== null ? place.address : {}) as Record<
    string,
    unknown
  >;
  const short = (item: unknown) => text(item)?.slice(0, 500) ?? null;
  const latitude = place.latitude;
  const longitude = place.longitude;
  const point =
    typeof latitude === 'number' &&
    typeof longitude === 'number' &&
    Math.abs(latitude) <= 90 &&
    Math.abs(longitude) <= 180
      ? { latitude, longitude }
      : null;
  const placeUrl = idOf(place);
  return {
    description: short(place.name),
    street: short(postal.streetAddress),
    postalCode: short(postal.postalCode),
    locality: short(postal.addressLocality),
    region: short(postal.addressRegion),
    country: short(postal.addressCountry),
    url: placeUrl && isWebUrl(placeUrl) ? placeUrl : null,
    geom: point,
  };
}

/** Whether an audience (`to`/`cc`, a string or a list) names the public collection. */
export function addressedToPublic(audience: unknown): boolean {
  const entries = Array.isArray(audience) ? audience : [audience];
  return entries.some((entry) => entry === AS_PUBLIC || entry === 'as:Public' || entry === 'Public');
}

function list(value: unknown): Array<Record<string, unknown>> {
  const items = Array.isArray(value) ? value : value === undefined || value === null ? [] : [value];
  return items.filter(
    (item): item is Record<string, unknown> =>
      typeof item === 'object' && item !== null && !Array.isArray(item),
  );
}

function text(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

function date(value: unknown): Date | null {
  if (typeof value !== 'string') return null;
  const parsed = new Date(value);
  return Number.isNaN(parsed.getTime()) ? null : parsed;
}

function isWebUrl(value: string): boolean {
  return URL.canParse(value) && ['http:', 'https:'].includes(new URL(value).protocol);
}

function isTimezone(value: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

function fail<T>(reason: string): Parsed<T> {
  return { ok: false, reason };
}
