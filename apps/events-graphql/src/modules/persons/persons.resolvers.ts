import type { Resolvers } from '../../graphql/resolvers-types.generated.js';
import { Actor } from './resolvers/Actor.js';
import { changeDefaultActor } from './resolvers/Mutation/changeDefaultActor.js';
import { createPerson } from './resolvers/Mutation/createPerson.js';
import { deletePerson } from './resolvers/Mutation/deletePerson.js';
import { registerPerson } from './resolvers/Mutation/registerPerson.js';
import { updatePerson } from './resolvers/Mutation/updatePerson.js';
import { Person } from './resolvers/Person.js';
import { fetchPerson } from './resolvers/Query/fetchPerson.js';
import { identities } from './resolvers/Query/identities.js';
import { loggedPerson } from './resolvers/Query/loggedPerson.js';
import { person } from './resolvers/Query/person.js';
import { persons } from './resolvers/Query/persons.js';
import { searchPersons } from './resolvers/Query/searchPersons.js';
import { User } from './resolvers/User.js';

/** The persons module's resolvers: one file per root field under resolvers/Query and resolvers/Mutation. */
export const personsResolvers: Resolvers = {
  Actor,
  Person,
  User,
  RootQueryType: { person, fetchPerson, loggedPerson, identities, persons, searchPersons },
  RootMutationType: { createPerson, updatePerson, deletePerson, registerPerson, changeDefaultActor },
};
