import type { CommentResolvers } from '../../../graphql/resolvers-types.generated.js';

export const Comment: CommentResolvers = {
  actor: (comment, _args, ctx) =>
    comment.actorId === null ? null : ctx.loaders.persons.actors.load(comment.actorId),
  attributedTo: (comment, _args, ctx) =>
    comment.attributedToId === null ? null : ctx.loaders.persons.actors.load(comment.attributedToId),
  event: (comment, _args, ctx) =>
    comment.eventId === null ? null : ctx.loaders.comments.events.load(comment.eventId),
  inReplyToComment: (comment, _args, ctx) =>
    comment.inReplyToCommentId === null ? null : ctx.loaders.comments.byId.load(comment.inReplyToCommentId),
  originComment: (comment, _args, ctx) =>
    comment.originCommentId === null ? null : ctx.loaders.comments.byId.load(comment.originCommentId),
  replies: (comment, _args, ctx) => ctx.loaders.comments.replies.load(comment.id),
  threadLanguages: (comment, _args, ctx) =>
    ctx.loaders.comments.threadLanguages.load(comment.originCommentId ?? comment.id),
  primaryLanguage: (comment) => (comment.language === 'und' ? null : comment.language),
};
