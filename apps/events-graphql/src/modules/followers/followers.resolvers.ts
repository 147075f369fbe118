import type { Resolvers } from '../../graphql/resolvers-types.generated.js';
import { FollowedGroupEvent } from './resolvers/FollowedGroupEvent.js';
import { Follower } from './resolvers/Follower.js';
import { Group } from './resolvers/Group.js';
import { followGroup } from './resolvers/Mutation/followGroup.js';
import { unfollowGroup } from './resolvers/Mutation/unfollowGroup.js';
import { updateFollower } from './resolvers/Mutation/updateFollower.js';
import { updateGroupFollow } from './resolvers/Mutation/updateGroupFollow.js';
import { Person } from './resolvers/Person.js';
import { User } from './resolvers/User.js';

/** The followers module's resolvers (following groups, issue 14 §3). */
export const followersResolvers: Resolvers = {
  Follower,
  FollowedGroupEvent,
  Group,
  Person,
  User,
  RootMutationType: { followGroup, unfollowGroup, updateGroupFollow, updateFollower },
};
