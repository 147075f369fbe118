import type { Resolvers } from '../../graphql/resolvers-types.generated.js';
import { interact } from './resolvers/Query/interact.js';

/** `interact(uri)` (not-shown.md §5): remote objects by URL through the guarded client. */
export const interactResolvers: Resolvers = {
  // Events are the only Interactable until groups land.
  Interactable: { __resolveType: () => 'Event' },
  RootQueryType: { interact },
};
