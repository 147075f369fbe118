/** An event as stored: what resolvers hand to the GraphQL `Event` (its codegen mapper). */
export interface EventRow {
  id: string;
  uuid: string;
  url: string;
  local: boolean;
  title: string;
  description: string;
  beginsOn: Date;
  endsOn: Date | null;
  status: string;
  visibility: string;
  joinOptions: string;
  draft: boolean;
  organizerActorId: string;
  attributedToId: string | null;
  category: string;
  language: string;
  options: Record<string, unknown>;
  metadata: EventMetadataEntry[];
  externalParticipationUrl: string | null;
  onlineAddress: string | null;
  phoneAddress: string | null;
  pictureId: string | null;
  physicalAddressId: string | null;
  publishAt: Date | null;
  /** When it became visible to others; null while a draft or before its `publishAt`. */
  publishedAt: Date | null;
  insertedAt: Date;
  updatedAt: Date;
}

export interface EventMetadataEntry {
  key: string;
  title: string | null;
  value: string;
  type: EventMetadataType;
}

export type EventMetadataType = 'BOOLEAN' | 'INTEGER' | 'STRING';

export interface TagRow {
  id: string;
  slug: string;
  title: string;
}

/** The columns of `events` under the names of EventRow. */
export const EVENT_COLUMNS = `e.id::text AS "id", e.uuid::text AS "uuid", e.url, e.local, e.title,
  e.description, e.begins_on AS "beginsOn", e.ends_on AS "endsOn", e.status, e.visibility,
  e.join_options AS "joinOptions", e.draft, e.organizer_actor_id::text AS "organizerActorId",
  e.attributed_to_id::text AS "attributedToId", e.category, e.language, e.options, e.metadata,
  e.external_participation_url AS "externalParticipationUrl", e.online_address AS "onlineAddress",
  e.phone_address AS "phoneAddress", e.picture_id::text AS "pictureId",
  e.physical_address_id::text AS "physicalAddressId", e.publish_at AS "publishAt",
  e.published_at AS "publishedAt", e.inserted_at AS "insertedAt", e.updated_at AS "updatedAt"`;

/** A stored place (table `addresses`): what resolvers hand to the GraphQL `Address`. */
export interface AddressRow {
  id: string;
  originId: string | null;
  street: string | null;
  locality: string | null;
  postalCode: string | null;
  region: string | null;
  country: string | null;
  description: string | null;
  type: string | null;
  url: string | null;
  timezone: string | null;
  latitude: number | null;
  longitude: number | null;
}

/** The columns of `addresses` under the names of AddressRow. */
export const ADDRESS_COLUMNS = `a.id::text AS "id", a.origin_id AS "originId", a.street, a.locality,
  a.postal_code AS "postalCode", a.region, a.country, a.description, a.type, a.url, a.timezone,
  a.latitude, a.longitude`;

/** Visible to anyone who may list events: published, public, not cancelled, to come. */
export const LISTED_SQL = `NOT e.draft AND e.published_at IS NOT NULL AND e.visibility = 'PUBLIC'
  AND e.status <> 'CANCELLED' AND e.begins_on > now()`;
