import type { RootMutationTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';
import { caller } from '../caller.js';

export const validateUser: RootMutationTypeResolvers['validateUser'] = (_parent, { token }, ctx) =>
  ctx.app.users.validateUser(token, caller(ctx));
