import { randomUUID } from 'node:crypto';
import type { FakeActor, FakeRemote } from '@agora/federation/testing';

/**
 * Documents shaped as a Mobilizon instance sends them (spec not-shown.md §5 and the reference's event,
 * comment, address, metadata and participant converters), for the fake remote to send and serve.
 */

export const AS_PUBLIC = 'https://www.w3.org/ns/activitystreams#Public';

/** The reference's `@context`: ActivityStreams, security, and the inline map of its terms. */
export const MOBILIZON_CONTEXT = [
  'https://www.w3.org/ns/activitystreams',
  'https://w3id.org/security/v1',
  {
    '@language': 'und',
    sc: 'http://schema.org#',
    ical: 'http://www.w3.org/2002/12/cal/ical#',
    pt: 'https://joinpeertube.org/ns#',
    toot: 'http://joinmastodon.org/ns#',
    mz: 'https://joinmobilizon.org/ns#',
    discoverable: 'toot:discoverable',
    manuallyApprovesFollowers: 'as:manuallyApprovesFollowers',
    Hashtag: 'as:Hashtag',
    category: 'sc:category',
    uuid: 'sc:identifier',
    maximumAttendeeCapacity: 'sc:maximumAttendeeCapacity',
    remainingAttendeeCapacity: 'sc:remainingAttendeeCapacity',
    location: { '@id': 'sc:location', '@type': 'sc:Place' },
    PostalAddress: 'sc:PostalAddress',
    address: { '@id': 'sc:address', '@type': 'sc:address' },
    addressCountry: 'sc:addressCountry',
    addressRegion: 'sc:addressRegion',
    postalCode: 'sc:postalCode',
    addressLocality: 'sc:addressLocality',
    streetAddress: 'sc:streetAddress',
    repliesModerationOption: {
      '@id': 'mz:repliesModerationOption',
      '@type': 'mz:repliesModerationOptionType',
    },
    repliesModerationOptionType: { '@id': 'mz:repliesModerationOptionType', '@type': 'rdfs:Class' },
    joinMode: { '@id': 'mz:joinMode', '@type': 'mz:joinModeType' },
    joinModeType: { '@id': 'mz:joinModeType', '@type': 'rdfs:Class' },
    anonymousParticipationEnabled: { '@id': 'mz:anonymousParticipationEnabled', '@type': 'sc:Boolean' },
    participationMessage: { '@id': 'mz:participationMessage', '@type': 'sc:Text' },
    participantCount: { '@id': 'mz:participantCount', '@type': 'sc:Integer' },
    isOnline: { '@id': 'mz:isOnline', '@type': 'sc:Boolean' },
    externalParticipationUrl: { '@id': 'mz:externalParticipationUrl', '@type': 'sc:URL' },
    timezone: { '@id': 'mz:timezone', '@type': 'sc:Text' },
    commentsEnabled: { '@id': 'pt:commentsEnabled', '@type': 'sc:Boolean' },
    PropertyValue: 'sc:PropertyValue',
    value: 'sc:value',
    propertyID: 'sc:propertyID',
    inLanguage: 'sc:inLanguage',
    status: { '@id': 'ical:status', '@type': 'ical:status' },
  },
];

export interface MobilizonEvent extends Record<string, unknown> {
  id: string;
  uuid: string;
}

/** An `Event` as the reference's converter builds it: a public FREE meeting in Lyon, online too. */
export function mobilizonEvent(
  remote: FakeRemote,
  organizer: FakeActor,
  overrides: Record<string, unknown> = {},
): MobilizonEvent {
  const uuid = randomUUID();
  const id = `${remote.origin}/events/${uuid}`;
  const begins = new Date(Date.now() + 10 * 86_400_000);
  begins.setUTCHours(17, 0, 0, 0);
  const ends = new Date(begins.getTime() + 3 * 3_600_000);
  return {
    type: 'Event',
    to: [AS_PUBLIC],
    cc: [`${organizer.uri}/followers`],
    attributedTo: organizer.uri,
    actor: organizer.uri,
    name: 'Repair café',
    uuid,
    category: 'science_tech',
    content: '<p>Bring your <b>broken</b> things</p><script>alert(1)</script> #repair',
    published: new Date().toISOString(),
    updated: new Date().toISOString(),
    mediaType: 'text/html',
    startTime: begins.toISOString().replace('.000Z', 'Z'),
    endTime: ends.toISOString().replace('.000Z', 'Z'),
    joinMode: 'free',
    externalParticipationUrl: null,
    tag: [{ type: 'Hashtag', href: `${remote.origin}/tags/repair`, name: '#repair' }],
    maximumAttendeeCapacity: 20,
    remainingAttendeeCapacity: 20,
    participantCount: 0,
    repliesModerationOption: 'allow_all',
    commentsEnabled: true,
    anonymousParticipationEnabled: false,
    attachment: [
      { type: 'PropertyValue', propertyID: 'mz:contact:email', value: 'repair@example.org', name: 'Contact' },
      { type: 'PropertyValue', propertyID: 'mz:accessibility:wheelchairAccessible', value: 'fully' },
      { type: 'Link', href: 'https://meet.example.org/repair', mediaType: 'text/html', name: 'Website' },
    ],
    draft: false,
    'ical:status': 'CONFIRMED',
    status: 'CONFIRMED',
    id,
    url: id,
    inLanguage: 'en',
    timezone: 'Europe/Paris',
    contacts: [],
    isOnline: false,
    location: {
      type: 'Place',
      name: 'Maison des associations',
      id: `${remote.origin}/address/${randomUUID()}`,
      address: {
        type: 'PostalAddress',
        streetAddress: '10 rue de la République',
        postalCode: '69001',
        addressLocality: 'Lyon',
        addressRegion: 'Auvergne-Rhône-Alpes',
        addressCountry: 'France',
      },
      latitude: 45.764,
      longitude: 4.8357,
    },
    ...overrides,
  } as MobilizonEvent;
}

/** A comment's `Note` as the reference builds it: public, replying to an event or another comment. */
export function mobilizonNote(
  remote: FakeRemote,
  author: FakeActor,
  inReplyTo: string,
  overrides: Record<string, unknown> = {},
): Record<string, unknown> {
  const uuid = randomUUID();
  return {
    type: 'Note',
    to: [AS_PUBLIC],
    cc: [],
    content: '<p>Count me in!</p><img src=x onerror=alert(1)>',
    mediaType: 'text/html',
    actor: author.uri,
    attributedTo: author.uri,
    uuid,
    id: `${remote.origin}/comments/${uuid}`,
    tag: [],
    published: new Date().toISOString(),
    inReplyTo,
    ...overrides,
  };
}

/** `Create`/`Update` of an object, with the reference's `@context` and the object's addressing. */
export function activityOf(
  type: 'Create' | 'Update',
  actor: FakeActor,
  object: Record<string, unknown>,
): Record<string, unknown> {
  return {
    '@context': MOBILIZON_CONTEXT,
    id: `${String(object.id)}/${type === 'Create' ? 'activity' : `update/${Date.now()}`}`,
    type,
    actor: actor.uri,
    to: object.to,
    cc: object.cc,
    object,
    published: new Date().toISOString(),
  };
}

/** Delete of an object as the reference sends it: `<url>/delete`, to the followers and Public. */
export function deleteOf(actor: FakeActor, objectUrl: string): Record<string, unknown> {
  return {
    '@context': MOBILIZON_CONTEXT,
    id: `${objectUrl}/delete`,
    type: 'Delete',
    actor: actor.uri,
    to: [`${actor.uri}/followers`, AS_PUBLIC],
    object: { type: 'Tombstone', id: objectUrl, deleted: new Date().toISOString() },
  };
}

/** A participant's `Join` (its id is the participation's url), with the optional message. */
export function joinOf(remote: FakeRemote, actor: FakeActor, eventUrl: string, message?: string) {
  return {
    '@context': MOBILIZON_CONTEXT,
    type: 'Join',
    id: `${remote.origin}/join/event/${randomUUID()}`,
    actor: actor.uri,
    object: eventUrl,
    ...(message ? { participationMessage: message } : {}),
  };
}
