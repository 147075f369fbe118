import type { MediaResolvers } from '../../../graphql/resolvers-types.generated.js';
import { isMediaRow } from '../media-parent.js';

// name, alt, contentType and size are read as stored.
export const Media: MediaResolvers = {
  id: (media) => (isMediaRow(media) ? String(media.id) : media.id),
  url: (media, _args, ctx) => (isMediaRow(media) ? ctx.app.media.url(media) : media.url),
  metadata: (media) =>
    isMediaRow(media)
      ? { width: media.width, height: media.height, blurhash: media.blurhash }
      : media.metadata,
};
