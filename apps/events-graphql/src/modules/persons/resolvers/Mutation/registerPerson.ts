import type { RootMutationTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';
import { stagePictures } from '../../../media/resolvers/media-input.js';
import { withPictures } from '../profile-pictures.js';

/** Anonymous callers may: the account is named by its email. */
export const registerPerson: RootMutationTypeResolvers['registerPerson'] = async (_parent, args, ctx) => {
  const input = {
    preferredUsername: args.preferredUsername,
    name: args.name ?? '',
    summary: args.summary ?? '',
  };
  // Anonymous: new uploads only (an account without a profile owns no media to reuse).
  const pictures = await stagePictures(ctx, null, { avatar: args.avatar, banner: args.banner });
  return ctx.app.media.withStaged(pictures.staged, () =>
    ctx.app.persons.register(args.email, input, withPictures(ctx, pictures)),
  );
};
