import type { GraphQLContext } from '../../../graphql/context.js';
import type { StagedPictures } from '../../media/resolvers/media-input.js';
import type { PicturesStep } from '../person.service.js';

/** The step that sets a profile's new pictures in the transaction writing it (none: no step). */
export function withPictures(ctx: GraphQLContext, pictures: StagedPictures): PicturesStep | undefined {
  if (Object.keys(pictures.choices).length === 0) return undefined;
  return (actor, transaction) => ctx.app.media.setPictures(actor, pictures.choices, transaction);
}
