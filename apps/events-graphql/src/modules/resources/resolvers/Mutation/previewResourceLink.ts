import type { RootMutationTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';
import { requireUser } from '../../../users/guards.js';

/** Any signed-in user (auth-per-operation.md): a link's preview, read through the guarded fetch. */
export const previewResourceLink: RootMutationTypeResolvers['previewResourceLink'] = async (
  _parent,
  { resourceUrl },
  ctx,
) => {
  await requireUser(ctx);
  return ctx.app.linkPreviews.preview(resourceUrl);
};
