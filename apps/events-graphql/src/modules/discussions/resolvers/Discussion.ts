import type { DiscussionResolvers } from '../../../graphql/resolvers-types.generated.js';

// id, slug, title, insertedAt and updatedAt are read as stored.
export const Discussion: DiscussionResolvers = {
  actor: (discussion, _args, ctx) => ctx.loaders.persons.actors.load(discussion.actorId),
  creator: (discussion, _args, ctx) =>
    discussion.creatorId === null ? null : ctx.loaders.persons.actors.load(discussion.creatorId),
  lastComment: (discussion, _args, ctx) =>
    discussion.lastCommentId === null ? null : ctx.loaders.comments.byId.load(discussion.lastCommentId),
  comments: (discussion, { page, limit }, ctx) =>
    ctx.loaders.discussions.comments.load({
      parentId: discussion.id,
      scope: 'all',
      page: page ?? 1,
      limit: limit ?? 10,
    }),
};
