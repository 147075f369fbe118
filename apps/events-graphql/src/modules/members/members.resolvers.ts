import type { Resolvers } from '../../graphql/resolvers-types.generated.js';
import { NaiveDateTime } from './naive-date-time.scalar.js';
import { Member } from './resolvers/Member.js';
import { acceptInvitation } from './resolvers/Mutation/acceptInvitation.js';
import { approveMember } from './resolvers/Mutation/approveMember.js';
import { inviteMember } from './resolvers/Mutation/inviteMember.js';
import { joinGroup } from './resolvers/Mutation/joinGroup.js';
import { leaveGroup } from './resolvers/Mutation/leaveGroup.js';
import { rejectInvitation } from './resolvers/Mutation/rejectInvitation.js';
import { rejectMember } from './resolvers/Mutation/rejectMember.js';
import { removeMember } from './resolvers/Mutation/removeMember.js';
import { updateMember } from './resolvers/Mutation/updateMember.js';
import { Person } from './resolvers/Person.js';
import { groupMembershipChanged } from './resolvers/Subscription/groupMembershipChanged.js';
import { User } from './resolvers/User.js';

/** The members module's resolvers: one file per root field under resolvers/Mutation and Subscription. */
export const membersResolvers: Resolvers = {
  NaiveDateTime,
  Member,
  Person,
  User,
  RootMutationType: {
    joinGroup,
    leaveGroup,
    inviteMember,
    acceptInvitation,
    rejectInvitation,
    approveMember,
    rejectMember,
    updateMember,
    removeMember,
  },
  RootSubscriptionType: { groupMembershipChanged },
};
