import { EVENTS_POLICIES, ipSubject, type SessionUser } from '@agora/auth';
import { BadInput, Forbidden } from '@agora/core';
import type { Actor } from '@agora/federation';
import type { GraphQLContext } from '../../../../graphql/context.js';
import type { RootMutationTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';
import { requireUser } from '../../../users/guards.js';
import { MEDIA_MESSAGES } from '../../media.service.js';
import { uploadedFile } from '../../upload.scalar.js';

export const uploadMedia: RootMutationTypeResolvers['uploadMedia'] = async (_parent, args, ctx) => {
  const user = await requireUser(ctx);
  if (ctx.ip) {
    await ctx.app.rateLimiter.enforce(
      [{ policy: EVENTS_POLICIES.uploadMedia.ip, subject: ipSubject(ctx.ip) }],
      { ip: ctx.ip },
    );
  }
  const part = uploadedFile(ctx, args.file);
  const owner = await uploader(ctx, user, args.actorId);
  return ctx.app.media.upload(user.id, owner, part.path, { name: args.name, alt: args.alt ?? null });
};

/** The profile an upload belongs to: the named one if it is the user's, else the default one. */
async function uploader(
  ctx: GraphQLContext,
  user: SessionUser,
  actorId: string | null | undefined,
): Promise<Actor> {
  if (actorId) {
    const actor = await ctx.app.actors.findById(actorId);
    if (!actor || actor.type !== 'Person' || actor.userId !== user.id) {
      throw new Forbidden(MEDIA_MESSAGES.notOwnedProfile, { code: 'unknown_error' });
    }
    return actor;
  }
  const actor = await ctx.loaders.persons.defaultActor.load(user.id);
  if (!actor) throw new BadInput(MEDIA_MESSAGES.noProfile, { code: 'unknown_error' });
  return actor;
}
