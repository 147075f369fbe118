import { Forbidden } from '@agora/core';
import type { MediaInput } from '../../../graphql/resolvers-types.generated.js';
import type { GraphQLContext } from '../../../graphql/context.js';
import type { Picture, PictureChoice, StagedMedia } from '../media.service.js';
import { uploadedFile } from '../upload.scalar.js';

/** A profile's new pictures, with the uploads already stored (to be committed or discarded). */
export interface StagedPictures {
  choices: Partial<Record<Picture, PictureChoice>>;
  staged: StagedMedia[];
}

/**
 * Reads the `avatar`/`banner` MediaInput arguments of a profile mutation: `{ mediaId }` picks one of
 * the caller's media, `{ media: { file, name, alt } }` uploads a new one with that kind's limit.
 */
export async function stagePictures(
  ctx: GraphQLContext,
  userId: string | null,
  inputs: Partial<Record<Picture, MediaInput | null | undefined>>,
): Promise<StagedPictures> {
  const { media } = ctx.app;
  const result: StagedPictures = { choices: {}, staged: [] };
  await media.withStaged(result.staged, async () => {
    for (const picture of ['avatar', 'banner'] as const) {
      const input = inputs[picture];
      if (input?.mediaId) {
        if (userId === null) throw new Forbidden();
        result.choices[picture] = { existing: await media.owned(userId, input.mediaId) };
      } else if (input?.media) {
        const part = uploadedFile(ctx, input.media.file);
        const staged = await media.stage(part.path, picture);
        result.staged.push(staged);
        const details = { name: input.media.name, alt: input.media.alt ?? null };
        result.choices[picture] = { staged, details };
      }
    }
  });
  return result;
}
