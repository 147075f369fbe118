import type { RootMutationTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';
import { stagePictures } from '../../../media/resolvers/media-input.js';
import { requireUser } from '../../../users/guards.js';
import { actingProfile } from '../acting-profile.js';
import { addressInput } from '../address-input.js';
import { withGroupPictures } from '../group-pictures.js';

/** The group's administrators (as the default profile); omitted values stay, a null address goes. */
export const updateGroup: RootMutationTypeResolvers['updateGroup'] = async (_parent, args, ctx) => {
  const user = await requireUser(ctx);
  const actor = await actingProfile(ctx, user);
  const patch = {
    name: args.name ?? undefined,
    summary: args.summary ?? undefined,
    visibility: args.visibility ?? undefined,
    openness: args.openness ?? undefined,
    manuallyApprovesFollowers: args.manuallyApprovesFollowers ?? undefined,
    physicalAddress: args.physicalAddress === undefined ? undefined : addressInput(args.physicalAddress),
  };
  const pictures = await stagePictures(ctx, user.id, { avatar: args.avatar, banner: args.banner });
  return ctx.app.media.withStaged(pictures.staged, () =>
    ctx.app.groups.update(actor, args.id, patch, withGroupPictures(ctx, user.id, pictures)),
  );
};
