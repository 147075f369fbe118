import type { RootMutationTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';
import { caller } from '../caller.js';

export const sendResetPassword: RootMutationTypeResolvers['sendResetPassword'] = (
  _parent,
  { email, locale },
  ctx,
) => ctx.app.users.sendResetPassword(email, locale ?? ctx.locale, caller(ctx));
