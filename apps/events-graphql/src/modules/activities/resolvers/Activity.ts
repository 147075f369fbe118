import type { ActivityResolvers } from '../../../graphql/resolvers-types.generated.js';
import type { GraphQLContext } from '../../../graphql/context.js';
import type { ActivityRow } from '../activity-row.js';

/** The activity's object, loaded by its kind; null once it is gone. */
async function activityObject(activity: ActivityRow, ctx: GraphQLContext) {
  const id = activity.objectId;
  if (id === null) return null;
  switch (activity.objectType) {
    case 'post':
      return ctx.loaders.posts.byId.load(id);
    case 'discussion':
      return ctx.loaders.discussions.byId.load(id);
    case 'member':
      return ctx.loaders.activities.members.load(id);
    case 'event':
      return ctx.loaders.comments.events.load(id);
    case 'comment':
      return ctx.loaders.comments.byId.load(id);
    case 'group':
      return ctx.loaders.persons.actors.load(id);
    default:
      return null;
  }
}

// id, type, subject and insertedAt are read as stored.
export const Activity: ActivityResolvers = {
  subjectParams: (activity) => Object.entries(activity.subjectParams).map(([key, value]) => ({ key, value })),
  // The reference words activities in its client; the server sends no message.
  message: () => null,
  messageParams: () => [],
  priority: () => null,
  author: (activity, _args, ctx) =>
    activity.authorId === null ? null : ctx.loaders.persons.actors.load(activity.authorId),
  group: (activity, _args, ctx) => ctx.loaders.persons.actors.load(activity.groupId),
  object: (activity, _args, ctx) => activityObject(activity, ctx),
};
