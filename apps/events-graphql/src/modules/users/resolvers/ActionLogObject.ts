import type { ActionLogObjectResolvers } from '../../../graphql/resolvers-types.generated.js';

export const ActionLogObject: ActionLogObjectResolvers = {
  // Users are the only implementation so far; the others come with their modules.
  __resolveType: () => 'User',
};
