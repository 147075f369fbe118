import type { RootMutationTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';
import { caller } from '../caller.js';

export const login: RootMutationTypeResolvers['login'] = (_parent, { email, password }, ctx) =>
  ctx.app.users.login(email, password, caller(ctx));
