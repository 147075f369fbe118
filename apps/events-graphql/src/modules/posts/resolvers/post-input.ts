import type { GraphQLContext } from '../../../graphql/context.js';
import type { MediaInput, PostVisibility } from '../../../graphql/resolvers-types.generated.js';
import { eventPicture } from '../../events/resolvers/event-picture.js';
import type { PostInput } from '../post.service.js';

interface PostArgs {
  body?: string | null;
  draft?: boolean | null;
  language?: string | null;
  picture?: MediaInput | null;
  publishAt?: Date | null;
  tags?: Array<string | null> | null;
  title?: string | null;
  visibility?: PostVisibility | null;
}

/** A post's arguments as the service takes them; the picture as events take theirs (a media id or an upload). */
export async function postInput(ctx: GraphQLContext, userId: string, args: PostArgs): Promise<PostInput> {
  return {
    title: args.title,
    body: args.body,
    draft: args.draft,
    language: args.language,
    publishAt: args.publishAt,
    tags: args.tags,
    visibility: args.visibility,
    picture: await eventPicture(ctx, userId, args.picture),
  };
}
