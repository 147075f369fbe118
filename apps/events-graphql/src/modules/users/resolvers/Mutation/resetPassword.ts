import type { RootMutationTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';
import { caller } from '../caller.js';

export const resetPassword: RootMutationTypeResolvers['resetPassword'] = (
  _parent,
  { token, password },
  ctx,
) => ctx.app.users.resetPassword(token, password, caller(ctx));
