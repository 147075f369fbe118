import DataLoader from 'dataloader';
import { Op } from 'sequelize';
import { toUser } from '@agora/auth';
import type { Actor } from '@agora/federation';
import type { AppContext } from '../../context.js';
import type { GraphQLContext } from '../../graphql/context.js';
import type { UserRecord } from '../users/user.service.js';
import type { PersonService } from './person.service.js';

/** Batches of one operation: a list of users or persons costs one query per field, not one per row. */
export interface PersonLoaders {
  identities: DataLoader<string, Actor[]>;
  defaultActor: DataLoader<string, Actor | null>;
  user: DataLoader<string, UserRecord | null>;
}

// Keyed by the operation's context, so the loaders die with it and nothing is shared between requests.
const loaders = new WeakMap<GraphQLContext, PersonLoaders>();

/** The app's person service. */
export function personService(app: AppContext): PersonService {
  return app.persons;
}

/** This operation's loaders. */
export function personLoaders(ctx: GraphQLContext): PersonLoaders {
  let found = loaders.get(ctx);
  if (!found) {
    const service = personService(ctx.app);
    found = {
      identities: new DataLoader(async (userIds) => {
        const byUser = await service.identitiesOf(userIds);
        return userIds.map((id) => byUser.get(id) ?? []);
      }),
      defaultActor: new DataLoader(async (userIds) => {
        const byUser = await service.defaultsOf(userIds);
        return userIds.map((id) => byUser.get(id) ?? null);
      }),
      user: new DataLoader(async (userIds) => {
        const rows = await ctx.app.accounts.model.findAll({ where: { id: { [Op.in]: [...userIds] } } });
        const byId = new Map(rows.map((row) => [String(row.get('id')), toUser(row.get())]));
        return userIds.map((id) => byId.get(id) ?? null);
      }),
    };
    loaders.set(ctx, found);
  }
  return found;
}
