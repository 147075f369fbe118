import DataLoader from 'dataloader';
import type { AppContext } from '../../context.js';
import type { EventRow } from '../events/event-row.js';
import type { MemberRole } from '../members/member-row.js';
import { defaultDetails, type GroupDetails } from './group-row.js';
import { GroupsView, type GroupEventQuery } from './views/groups.view.js';

/** Batches of one operation: a page of groups costs one query per field, not one per group. */
export interface GroupLoaders {
  /** What the events service keeps about a group (a default for a remote group without a row). */
  details: DataLoader<string, GroupDetails>;
  /** A profile's role in a group, null without a membership; keys are `actorId:groupId`. */
  roles: DataLoader<string, MemberRole | null>;
  /** Pages of groups' events (`Group.organizedEvents`): groups asked the same page share one statement. */
  events: DataLoader<GroupEventQuery, { elements: EventRow[]; total: number }, string>;
  view: GroupsView;
}

/** Built on first use by the request context (`ctx.loaders.groups`). */
export function createGroupLoaders(app: AppContext): GroupLoaders {
  const view = new GroupsView(app);
  const pageKey = ({ groupId: _groupId, ...query }: GroupEventQuery) =>
    JSON.stringify([
      query.scope,
      query.after,
      query.before,
      query.order,
      query.direction,
      query.page,
      query.limit,
    ]);
  return {
    view,
    events: new DataLoader(
      async (keys) => {
        const batches = new Map<string, GroupEventQuery[]>();
        for (const key of keys) batches.set(pageKey(key), [...(batches.get(pageKey(key)) ?? []), key]);
        const pages = new Map<string, { elements: EventRow[]; total: number }>();
        for (const [batch, members] of batches) {
          const found = await view.eventsOf(
            members.map((key) => key.groupId),
            members[0]!,
          );
          for (const [groupId, page] of found) pages.set(`${batch}:${groupId}`, page);
        }
        return keys.map((key) => pages.get(`${pageKey(key)}:${key.groupId}`) ?? { elements: [], total: 0 });
      },
      { cacheKeyFn: (key) => `${pageKey(key)}:${key.groupId}` },
    ),
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
