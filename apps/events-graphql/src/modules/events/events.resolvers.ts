import type { Resolvers } from '../../graphql/resolvers-types.generated.js';
import { PointScalar } from './point.scalar.js';
import { Address } from './resolvers/Address.js';
import { Event } from './resolvers/Event.js';
import { createEvent } from './resolvers/Mutation/createEvent.js';
import { deleteEvent } from './resolvers/Mutation/deleteEvent.js';
import { updateEvent } from './resolvers/Mutation/updateEvent.js';
import { event } from './resolvers/Query/event.js';
import { events } from './resolvers/Query/events.js';
import { Person } from './resolvers/Person.js';
import { User } from './resolvers/User.js';
import { UUIDScalar } from './uuid.scalar.js';

/** The events module's resolvers: one file per root field under resolvers/Query and resolvers/Mutation. */
export const eventsResolvers: Resolvers = {
  UUID: UUIDScalar,
  Point: PointScalar,
  Address,
  Event,
  Person,
  User,
  RootQueryType: { event, events },
  RootMutationType: { createEvent, updateEvent, deleteEvent },
};
