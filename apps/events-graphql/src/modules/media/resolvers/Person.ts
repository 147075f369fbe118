import type { GraphQLContext } from '../../../graphql/context.js';
import type { PersonResolvers } from '../../../graphql/resolvers-types.generated.js';
import type { PersonParent } from '../../persons/person-parent.js';
import type { MediaParent } from '../media-parent.js';
import type { Picture } from '../media.service.js';
import { requireOwnerOrModerator } from './owner-guard.js';

/**
 * A local actor's picture is its media row; a remote one's is our copy of it, or null while there is
 * none (profiles and groups alike).
 */
export async function picture(
  actor: PersonParent,
  which: Picture,
  ctx: GraphQLContext,
): Promise<MediaParent | null> {
  if (actor.local) return (await ctx.loaders.media.pictures.load(actor.id))[which] ?? null;
  const url = which === 'avatar' ? actor.avatarUrl : actor.headerUrl;
  // Remote URLs are not shown: only the local copy.
  const copy = url ? await ctx.loaders.media.remoteCopies.load(url) : null;
  if (!copy?.localUrl) return null;
  const { contentType, size, localUrl } = copy;
  return { id: null, name: null, alt: null, contentType, size, url: localUrl, metadata: null };
}

export const Person: PersonResolvers = {
  avatar: (actor, _args, ctx) => picture(actor, 'avatar', ctx),
  banner: (actor, _args, ctx) => picture(actor, 'banner', ctx),
  mediaSize: async (actor, _args, ctx) => {
    await requireOwnerOrModerator(ctx, actor.userId);
    return ctx.loaders.media.actorSize.load(actor.id);
  },
};
