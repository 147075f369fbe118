import type { RootMutationTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';
import { caller } from '../caller.js';

export const createUser: RootMutationTypeResolvers['createUser'] = (
  _parent,
  { email, password, locale },
  ctx,
) => ctx.app.users.register({ email, password, locale: locale ?? ctx.locale }, caller(ctx));
