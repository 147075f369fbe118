import { EVENTS_LD_CONTEXT, type Actor } from '@agora/federation';
import type { CommentRow } from '../modules/comments/comment-row.js';
import type { AddressRow, EventMetadataEntry, EventRow } from '../modules/events/event-row.js';

/** The public collection of ActivityStreams. */
export const AS_PUBLIC = 'https://www.w3.org/ns/activitystreams#Public';

/** The name the reference gives the online address `Link` and the picture `Document` among attachments. */
export const ONLINE_ADDRESS_NAME = 'Website';
export const BANNER_NAME = 'Banner';

/** Everything an event's document shows besides its own row, loaded by the caller in a few queries. */
export interface EventDocumentSource {
  event: EventRow;
  organizer: Pick<Actor, 'uri' | 'followersUrl'>;
  /** The group the event is attributed to; null: the organizer. */
  attributedTo: Pick<Actor, 'uri' | 'followersUrl'> | null;
  tags: Array<{ slug: string; title: string }>;
  address: AddressRow | null;
  picture: { url: string; mediaType: string } | null;
  /** Actor ids (URIs) of the contacts, in order. */
  contacts: string[];
  /** PARTICIPANT role only, as the reference counts. */
  participantCount: number;
}

/** What a comment's Note needs besides its row. */
export interface CommentDocumentSource {
  comment: CommentRow;
  author: Pick<Actor, 'uri' | 'followersUrl'>;
  /** The URL of the comment replied to, else of the event. */
  inReplyTo: string | null;
}

/**
 * The `Event` object as the reference builds it (not-shown.md §5 and its event converter): the
 * schema.org, iCal and Mobilizon terms, addressing by visibility (public: `to` Public and `cc` the
 * followers; unlisted: the other way round), times in the event's time zone.
 */
export function eventObject(source: EventDocumentSource, publicUrl: string): Record<string, unknown> {
  const { event } = source;
  const options = event.options;
  const timezone = typeof options['timezone'] === 'string' ? options['timezone'] : null;
  const owner = source.attributedTo ?? source.organizer;
  const followers = owner.followersUrl ?? `${owner.uri}/followers`;
  const publicEvent = event.visibility === 'PUBLIC';
  const maximum = positiveInt(options['maximumAttendeeCapacity']);
  const commentModeration = String(options['commentModeration'] ?? 'ALLOW_ALL').toLowerCase();
  const attachment: Array<Record<string, unknown>> = event.metadata.map(metadataAttachment);
  if (source.picture) {
    attachment.push({
      type: 'Document',
      mediaType: source.picture.mediaType,
      url: source.picture.url,
      name: BANNER_NAME,
    });
  }
  if (event.onlineAddress) {
    attachment.push({
      type: 'Link',
      href: event.onlineAddress,
      mediaType: 'text/html',
      name: ONLINE_ADDRESS_NAME,
    });
  }
  const document: Record<string, unknown> = {
    type: 'Event',
    id: event.url,
    url: event.url,
    to: publicEvent ? [AS_PUBLIC] : [followers],
    cc: publicEvent ? [followers] : [AS_PUBLIC],
    attributedTo: owner.uri,
    actor: source.organizer.uri,
    name: event.title,
    uuid: event.uuid,
    category: event.category.toLowerCase(),
    content: event.description,
    mediaType: 'text/html',
    summary: eventSummary(event, source.address, timezone),
    published: (event.publishedAt ?? event.insertedAt).toISOString(),
    updated: event.updatedAt.toISOString(),
    startTime: isoInZone(event.beginsOn, timezone),
    endTime: event.endsOn ? isoInZone(event.endsOn, timezone) : null,
    timezone,
    joinMode: event.joinOptions.toLowerCase(),
    externalParticipationUrl: event.externalParticipationUrl,
    tag: source.tags.map((tag) => ({
      type: 'Hashtag',
      href: `${publicUrl}/tags/${encodeURIComponent(tag.slug)}`,
      name: `#${tag.title}`,
    })),
    maximumAttendeeCapacity: maximum,
    remainingAttendeeCapacity: maximum === null ? null : Math.max(maximum - source.participantCount, 0),
    participantCount: source.participantCount,
    repliesModerationOption: commentModeration,
    commentsEnabled: commentModeration === 'allow_all',
    anonymousParticipationEnabled: options['anonymousParticipation'] === true,
    attachment,
    draft: event.draft,
    'ical:status': event.status.toUpperCase(),
    status: event.status.toUpperCase(),
    inLanguage: event.language,
    contacts: source.contacts,
    isOnline: options['isOnline'] === true,
  };
  if (source.address) document['location'] = placeOf(source.address);
  return document;
}

/** A `Place` with its `PostalAddress` (and the point, when there is one). */
export function placeOf(address: AddressRow): Record<string, unknown> {
  const place: Record<string, unknown> = {
    type: 'Place',
    name: address.description,
    id: address.url,
    address: {
      type: 'PostalAddress',
      streetAddress: address.street,
      postalCode: address.postalCode,
      addressLocality: address.locality,
      addressRegion: address.region,
      addressCountry: address.country,
    },
  };
  if (address.latitude !== null && address.longitude !== null) {
    place['latitude'] = address.latitude;
    place['longitude'] = address.longitude;
  }
  return place;
}

/** A metadata entry as the reference's PropertyValue: booleans and integers typed, strings named. */
function metadataAttachment(entry: EventMetadataEntry): Record<string, unknown> {
  if (entry.type === 'BOOLEAN' && (entry.value === 'true' || entry.value === 'false')) {
    return { type: 'PropertyValue', propertyID: entry.key, value: entry.value === 'true' };
  }
  if (entry.type === 'INTEGER' && /^-?\d+$/.test(entry.value)) {
    return { type: 'PropertyValue', propertyID: entry.key, value: Number(entry.value) };
  }
  return {
    type: 'PropertyValue',
    propertyID: entry.key,
    value: entry.value,
    ...(entry.title ? { name: entry.title } : {}),
  };
}

/** The `Note` of a comment (inReplyTo: the comment replied to, else the event), or its tombstone. */
export function commentObject(source: CommentDocumentSource): Record<string, unknown> {
  const { comment } = source;
  if (comment.deletedAt) return tombstone(comment.url, comment.deletedAt);
  const publicComment = comment.visibility === 'PUBLIC' || comment.visibility === 'UNLISTED';
  const note: Record<string, unknown> = {
    type: 'Note',
    id: comment.url,
    to: [publicComment ? AS_PUBLIC : (source.author.followersUrl ?? `${source.author.uri}/followers`)],
    cc: [],
    content: comment.text,
    mediaType: 'text/html',
    actor: source.author.uri,
    attributedTo: source.author.uri,
    uuid: comment.uuid,
    tag: [],
    published: comment.publishedAt.toISOString(),
  };
  if (comment.updatedAt.getTime() !== comment.publishedAt.getTime()) {
    note['updated'] = comment.updatedAt.toISOString();
  }
  if (source.inReplyTo) note['inReplyTo'] = source.inReplyTo;
  return note;
}

export function tombstone(id: string, deletedAt: Date, formerType?: string): Record<string, unknown> {
  return { type: 'Tombstone', id, ...(formerType ? { formerType } : {}), deleted: deletedAt.toISOString() };
}

/** Create/Update of an object: its addressing, its author as actor, the events service's `@context`. */
export function wrapActivity(
  type: 'Create' | 'Update',
  object: Record<string, unknown>,
  actorUri: string,
  at: Date,
): Record<string, unknown> {
  const id =
    type === 'Create' ? `${String(object.id)}/activity` : `${String(object.id)}/update/${at.getTime()}`;
  return {
    '@context': EVENTS_LD_CONTEXT,
    id,
    type,
    actor: actorUri,
    to: object.to,
    cc: object.cc,
    object,
    published: at.toISOString(),
  };
}

/** Delete of an object (`<url>/delete`), sent to the author's followers and Public as the reference does. */
export function deleteActivity(
  objectUrl: string,
  actor: Pick<Actor, 'uri' | 'followersUrl'>,
  deletedAt: Date,
  formerType: string,
): Record<string, unknown> {
  return {
    '@context': EVENTS_LD_CONTEXT,
    id: `${objectUrl}/delete`,
    type: 'Delete',
    actor: actor.uri,
    to: [actor.followersUrl ?? `${actor.uri}/followers`, AS_PUBLIC],
    cc: [],
    object: tombstone(objectUrl, deletedAt, formerType),
  };
}

/** A document served on its own (content negotiation): the object with the `@context`. */
export function withContext(object: Record<string, unknown>): Record<string, unknown> {
  return { '@context': EVENTS_LD_CONTEXT, ...object };
}

function positiveInt(value: unknown): number | null {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : null;
}

/** A one-line plain text summary for microblog readers: when and where. */
function eventSummary(event: EventRow, address: AddressRow | null, timezone: string | null): string {
  const when = new Intl.DateTimeFormat('en', {
    dateStyle: 'full',
    timeStyle: 'short',
    timeZone: timezone ?? 'UTC',
  }).format(event.beginsOn);
  const where = address
    ? [address.description, address.locality, address.country].filter(Boolean).join(', ')
    : '';
  return where ? `${when} — ${where}` : when;
}

/**
 * An ISO 8601 time with the offset of `timezone` at that instant (`2026-12-01T19:00:00+01:00`), as the
 * reference shifts start and end times; UTC (`Z`) without a time zone.
 */
export function isoInZone(date: Date, timezone: string | null): string {
  if (!timezone) return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
  let parts: Record<string, string>;
  try {
    parts = Object.fromEntries(
      new Intl.DateTimeFormat('en-US', {
        timeZone: timezone,
        hourCycle: 'h23',
        year: 'numeric',
        month: '2-digit',
        day: '2-digit',
        hour: '2-digit',
        minute: '2-digit',
        second: '2-digit',
      })
        .formatToParts(date)
        .map((part) => [part.type, part.value]),
    );
  } catch {
    return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
  }
  const local = Date.UTC(
    Number(parts.year),
    Number(parts.month) - 1,
    Number(parts.day),
    Number(parts.hour),
    Number(parts.minute),
    Number(parts.second),
  );
  const offsetMinutes = Math.round((local - Math.floor(date.getTime() / 1000) * 1000) / 60_000);
  const sign = offsetMinutes < 0 ? '-' : '+';
  const abs = Math.abs(offsetMinutes);
  const offset = `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
  return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}${offset}`;
}
