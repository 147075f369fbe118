import type { Resolvers } from '../../graphql/resolvers-types.generated.js';
import { Activity } from './resolvers/Activity.js';
import { ActivityObject } from './resolvers/ActivityObject.js';
import { Group } from './resolvers/Group.js';

/** The activity stream's resolvers; its `Group.activity` replaces the groups module's empty page. */
export const activitiesResolvers: Resolvers = { Activity, ActivityObject, Group };
