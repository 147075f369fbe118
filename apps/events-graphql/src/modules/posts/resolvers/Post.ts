import type { PostResolvers } from '../../../graphql/resolvers-types.generated.js';

// id, slug, url, title, body, draft, visibility, language, publishAt, insertedAt, updatedAt are read as stored.
export const Post: PostResolvers = {
  author: (post, _args, ctx) =>
    post.authorId === null ? null : ctx.loaders.persons.actors.load(post.authorId),
  attributedTo: (post, _args, ctx) => ctx.loaders.persons.actors.load(post.attributedToId),
  picture: (post, _args, ctx) =>
    post.pictureId === null ? null : ctx.loaders.events.pictures.load(post.pictureId),
  tags: async (post, _args, ctx) =>
    (await ctx.loaders.posts.tags.load(post.id)).map((tag) => ({ ...tag, related: [] })),
};
