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
  publishAt: Date | null;
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
  e.phone_address AS "phoneAddress", e.picture_id::text AS "pictureId", e.publish_at AS "publishAt",
  e.inserted_at AS "insertedAt", e.updated_at AS "updatedAt"`;
