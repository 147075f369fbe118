import type { Resolvers } from '../../graphql/resolvers-types.generated.js';
import { Media } from './resolvers/Media.js';
import { removeMedia } from './resolvers/Mutation/removeMedia.js';
import { uploadMedia } from './resolvers/Mutation/uploadMedia.js';
import { Person } from './resolvers/Person.js';
import { media } from './resolvers/Query/media.js';
import { User } from './resolvers/User.js';
import { UploadScalar } from './upload.scalar.js';

/** The media module's resolvers: one file per root field under resolvers/Query and resolvers/Mutation. */
export const mediaResolvers: Resolvers = {
  Upload: UploadScalar,
  Media,
  Person,
  User,
  RootQueryType: { media },
  RootMutationType: { uploadMedia, removeMedia },
};
