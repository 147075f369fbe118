import DataLoader from 'dataloader';
import type { AppContext } from '../../context.js';
import type { MemberRole } from '../members/member-row.js';
import { defaultDetails, type GroupDetails } from './group-row.js';
import { GroupsView } from './views/groups.view.js';

/** Batches of one operation: a page of groups costs one query per field, not one per group. */
export interface GroupLoaders {
  /** What the events service keeps about a group (a default for a remote group without a row). */
  details: DataLoader<string, GroupDetails>;
  /** A profile's role in a group, null without a membership; keys are `actorId:groupId`. */
  roles: DataLoader<string, MemberRole | null>;
  view: GroupsView;
}

/** Built on first use by the request context (`ctx.loaders.groups`). */
export function createGroupLoaders(app: AppContext): GroupLoaders {
  const view = new GroupsView(app);
  return {
    view,
    details: new DataLoader(async (ids) => {
      const found = await view.details(ids);
      return ids.map((id) => found.get(id) ?? defaultDetails(id));
    }),
    roles: new DataLoader(async (keys) => {
      const byActor = new Map<string, string[]>();
      for (const key of keys) {
        const [actorId = '', groupId = ''] = key.split(':');
        byActor.set(actorId, [...(byActor.get(actorId) ?? []), groupId]);
      }
      const roles = new Map<string, MemberRole>();
      for (const [actorId, groupIds] of byActor) {
        for (const [groupId, role] of await view.rolesOf(actorId, groupIds))
          roles.set(`${actorId}:${groupId}`, role);
      }
      return keys.map((key) => roles.get(key) ?? null);
    }),
  };
}
