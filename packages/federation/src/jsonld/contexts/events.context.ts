import type { JsonLdContextMap } from './context.types.js';

const boolean = (id: string) => ({ '@id': id, '@type': 'sc:Boolean' });
const integer = (id: string) => ({ '@id': id, '@type': 'sc:Integer' });
const text = (id: string) => ({ '@id': id, '@type': 'sc:Text' });
const link = (id: string) => ({ '@id': id, '@type': '@id' });

/**
 * The events service's inline context map (`spec/events/not-shown.md` §5): the reference's schema.org,
 * iCal, PeerTube, Mastodon and Mobilizon terms, so peers that do JSON-LD processing keep every field.
 */
export const eventsContextMap: JsonLdContextMap = {
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
  maximumAttendeeCapacity: integer('sc:maximumAttendeeCapacity'),
  remainingAttendeeCapacity: integer('sc:remainingAttendeeCapacity'),
  location: 'sc:location',
  address: 'sc:address',
  PostalAddress: 'sc:PostalAddress',
  addressCountry: 'sc:addressCountry',
  addressRegion: 'sc:addressRegion',
  postalCode: 'sc:postalCode',
  addressLocality: 'sc:addressLocality',
  streetAddress: 'sc:streetAddress',
  repliesModerationOptionType: 'mz:repliesModerationOptionType',
  repliesModerationOption: { '@id': 'mz:repliesModerationOption', '@type': 'mz:repliesModerationOptionType' },
  joinModeType: 'mz:joinModeType',
  joinMode: { '@id': 'mz:joinMode', '@type': 'mz:joinModeType' },
  anonymousParticipationEnabled: boolean('mz:anonymousParticipationEnabled'),
  participationMessage: text('mz:participationMessage'),
  participantCount: integer('mz:participantCount'),
  memberCount: integer('mz:memberCount'),
  isOnline: boolean('mz:isOnline'),
  externalParticipationUrl: { '@id': 'mz:externalParticipationUrl', '@type': 'sc:URL' },
  timezone: text('mz:timezone'),
  discussions: link('mz:discussions'),
  events: link('mz:events'),
  members: link('mz:members'),
  openness: 'mz:openness',
  posts: link('mz:posts'),
  resources: link('mz:resources'),
  todos: link('mz:todos'),
  commentsEnabled: boolean('pt:commentsEnabled'),
  PropertyValue: 'sc:PropertyValue',
  value: 'sc:value',
  propertyID: 'sc:propertyID',
  inLanguage: 'sc:inLanguage',
  status: 'ical:status',
  '@language': 'und',
};
