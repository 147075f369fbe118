import type { RootQueryTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';
import { viewerProfile } from '../../../groups/resolvers/acting-profile.js';

/** A post by slug (anonymous callers too): behaviour 26 decides what each caller may read. */
export const post: RootQueryTypeResolvers['post'] = async (_parent, { slug }, ctx) => {
  const viewer = await ctx.viewer();
  const profile = viewer ? await viewerProfile(ctx) : null;
  return ctx.app.posts.bySlug(slug, {
    actorId: profile?.id ?? null,
    instanceModerator: viewer ? ctx.app.users.canModerate(viewer) : false,
  });
};
