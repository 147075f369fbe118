import type { MediaInput } from '../../../graphql/resolvers-types.generated.js';
import type { GraphQLContext } from '../../../graphql/context.js';
import type { PictureChoice } from '../../media/media.service.js';
import { uploadedFile } from '../../media/upload.scalar.js';

/**
 * An event's `picture` MediaInput as a choice for the service: `{ mediaId }` must be one of the
 * caller's media (unknown → 404, someone else's → 403); `{ media: { file, name, alt } }` is uploaded
 * and staged, to become the organizer's media inside the event's transaction (or be deleted).
 */
export async function eventPicture(
  ctx: GraphQLContext,
  userId: string,
  input: MediaInput | null | undefined,
): Promise<PictureChoice | null | undefined> {
  if (input === undefined) return undefined;
  if (input === null || (!input.mediaId && !input.media)) return null;
  const { media } = ctx.app;
  if (input.mediaId) {
    return { existing: await media.owned(userId, input.mediaId) };
  }
  const part = uploadedFile(ctx, input.media!.file);
  const staged = await media.stage(part.path, 'attachment');
  return { staged, details: { name: input.media!.name, alt: input.media!.alt ?? null } };
}
