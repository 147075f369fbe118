import type { GraphQLContext } from '../../../graphql/context.js';
import type { StagedPictures } from '../../media/resolvers/media-input.js';
import type { GroupPicturesStep } from '../group.service.js';

/**
 * The step that sets a group's new pictures in the transaction writing it (none: no step). The media
 * belong to the group actor; the uploading user is recorded as their owner account.
 */
export function withGroupPictures(
  ctx: GraphQLContext,
  userId: string,
  pictures: StagedPictures,
): GroupPicturesStep | undefined {
  if (Object.keys(pictures.choices).length === 0) return undefined;
  return (group, transaction) =>
    ctx.app.media.setPictures({ ...group, userId }, pictures.choices, transaction);
}
