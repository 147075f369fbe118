import type { RootMutationTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';
import { caller } from '../caller.js';

export const resendConfirmationEmail: RootMutationTypeResolvers['resendConfirmationEmail'] = (
  _parent,
  { email, locale },
  ctx,
) => ctx.app.users.resendConfirmation(email, locale ?? ctx.locale, caller(ctx));
