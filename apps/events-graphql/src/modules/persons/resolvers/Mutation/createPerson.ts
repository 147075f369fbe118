import type { RootMutationTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';
import { stagePictures } from '../../../media/resolvers/media-input.js';
import { requireUser } from '../../../users/guards.js';
import { forgetIdentities } from '../../person.loaders.js';
import { withPictures } from '../profile-pictures.js';

export const createPerson: RootMutationTypeResolvers['createPerson'] = async (_parent, args, ctx) => {
  const user = await requireUser(ctx);
  const input = {
    preferredUsername: args.preferredUsername,
    name: args.name ?? '',
    summary: args.summary ?? '',
  };
  const pictures = await stagePictures(ctx, user.id, { avatar: args.avatar, banner: args.banner });
  const person = await ctx.app.media.withStaged(pictures.staged, () =>
    ctx.app.persons.create(user, input, withPictures(ctx, pictures)),
  );
  forgetIdentities(ctx.loaders.persons, user.id);
  return person;
};
