import type { RootMutationTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';
import { stagePictures } from '../../../media/resolvers/media-input.js';
import { requireUser } from '../../../users/guards.js';
import { actingProfile } from '../acting-profile.js';
import { withGroupPictures } from '../group-pictures.js';
import { addressInput } from '../address-input.js';

/** Any signed-in user (only administrators under `only_admin_can_create_groups`); the default profile administers it. */
export const createGroup: RootMutationTypeResolvers['createGroup'] = async (_parent, args, ctx) => {
  const user = await requireUser(ctx);
  const creator = await actingProfile(ctx, user);
  const input = {
    preferredUsername: args.preferredUsername,
    name: args.name,
    summary: args.summary,
    visibility: args.visibility,
    openness: args.openness,
    manuallyApprovesFollowers: args.manuallyApprovesFollowers,
    physicalAddress: addressInput(args.physicalAddress),
  };
  const pictures = await stagePictures(ctx, user.id, { avatar: args.avatar, banner: args.banner });
  return ctx.app.media.withStaged(pictures.staged, () =>
    ctx.app.groups.create(user, creator, input, withGroupPictures(ctx, user.id, pictures)),
  );
};
