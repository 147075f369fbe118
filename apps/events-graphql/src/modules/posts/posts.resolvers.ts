import type { Resolvers } from '../../graphql/resolvers-types.generated.js';
import { Group } from './resolvers/Group.js';
import { createPost } from './resolvers/Mutation/createPost.js';
import { deletePost } from './resolvers/Mutation/deletePost.js';
import { updatePost } from './resolvers/Mutation/updatePost.js';
import { Post } from './resolvers/Post.js';
import { post } from './resolvers/Query/post.js';

/** The posts module's resolvers; its `Group.posts` replaces the groups module's empty page. */
export const postsResolvers: Resolvers = {
  Post,
  Group,
  RootQueryType: { post },
  RootMutationType: { createPost, updatePost, deletePost },
};
