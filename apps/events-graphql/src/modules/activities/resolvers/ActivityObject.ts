import type { ActivityObjectResolvers } from '../../../graphql/resolvers-types.generated.js';

/**
 * The GraphQL type of an activity's object, told by the shape of the row it was loaded as (each kind
 * has a field no other has).
 */
export const ActivityObject: ActivityObjectResolvers = {
  __resolveType: (object) => {
    const row = object as unknown as Record<string, unknown>;
    if ('beginsOn' in row) return 'Event';
    if ('publishAt' in row && 'body' in row) return 'Post';
    if ('lastCommentId' in row) return 'Discussion';
    if ('parentId' in row && 'role' in row) return 'Member';
    if ('originCommentId' in row) return 'Comment';
    if (row['type'] === 'Group') return 'Group';
    return null;
  },
};
