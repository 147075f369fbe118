import type { MediaRow } from './media.model.js';

/** The public fields of a picture that is no row of ours: a remote profile's local copy, a setting's snapshot. */
export interface MediaFields {
  id: string | null;
  name: string | null;
  alt: string | null;
  contentType: string | null;
  size: number | null;
  url: string;
  metadata: { width: number | null; height: number | null; blurhash: string | null } | null;
}

/** What resolvers hand to the GraphQL `Media`: a stored media row, or the fields of a picture that is none. */
export type MediaParent = MediaRow | MediaFields;

/** Whether `media` is a stored row (its URL and metadata are derived from its columns). */
export function isMediaRow(media: MediaParent): media is MediaRow {
  return 'fileKey' in media;
}
