import type { RootQueryTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';

/** Anyone may read a media by its id. */
export const media: RootQueryTypeResolvers['media'] = (_parent, { id }, ctx) => ctx.app.media.get(id);
