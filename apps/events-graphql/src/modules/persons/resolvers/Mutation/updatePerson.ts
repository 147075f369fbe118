import type { RootMutationTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';
import { stagePictures } from '../../../media/resolvers/media-input.js';
import { requireUser } from '../../../users/guards.js';
import { withPictures } from '../profile-pictures.js';

export const updatePerson: RootMutationTypeResolvers['updatePerson'] = async (_parent, args, ctx) => {
  const user = await requireUser(ctx);
  const patch = { name: args.name ?? undefined, summary: args.summary ?? undefined };
  const pictures = await stagePictures(ctx, user.id, { avatar: args.avatar, banner: args.banner });
  return ctx.app.media.withStaged(pictures.staged, () =>
    ctx.app.persons.update(user, args.id, patch, withPictures(ctx, pictures)),
  );
};
