import type { RootQueryTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';
import { actingProfile } from '../../../groups/resolvers/acting-profile.js';
import { requireUser } from '../../../users/guards.js';

/** A discussion by id or slug, for a member of its group (behaviour 28). */
export const discussion: RootQueryTypeResolvers['discussion'] = async (_parent, { id, slug }, ctx) => {
  const user = await requireUser(ctx);
  return ctx.app.discussions.find(await actingProfile(ctx, user), { id, slug });
};
