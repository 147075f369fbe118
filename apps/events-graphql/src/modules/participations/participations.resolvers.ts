import type { Resolvers } from '../../graphql/resolvers-types.generated.js';
import { Event } from './resolvers/Event.js';
import { confirmParticipation } from './resolvers/Mutation/confirmParticipation.js';
import { joinEvent } from './resolvers/Mutation/joinEvent.js';
import { leaveEvent } from './resolvers/Mutation/leaveEvent.js';
import { updateParticipation } from './resolvers/Mutation/updateParticipation.js';
import { Participant } from './resolvers/Participant.js';
import { Person } from './resolvers/Person.js';
import { eventPersonParticipationChanged } from './resolvers/Subscription/eventPersonParticipationChanged.js';
import { User } from './resolvers/User.js';

/** The participations module's resolvers: one file per root field under resolvers/Mutation and Subscription. */
export const participationsResolvers: Resolvers = {
  Participant,
  Event,
  Person,
  User,
  RootMutationType: { joinEvent, leaveEvent, updateParticipation, confirmParticipation },
  RootSubscriptionType: { eventPersonParticipationChanged },
};
