import type { RootMutationTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';

/** Anyone holding the token an anonymous participation's e-mail carried confirms it. */
export const confirmParticipation: RootMutationTypeResolvers['confirmParticipation'] = (
  _parent,
  { confirmationToken },
  ctx,
) => ctx.app.participations.confirm(confirmationToken);
