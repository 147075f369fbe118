import { Forbidden, Unauthenticated } from '@agora/core';
import type { GraphQLContext } from '../../../graphql/context.js';
import type { GroupResolvers } from '../../../graphql/resolvers-types.generated.js';
import { picture } from '../../media/resolvers/Person.js';
import { isAdministratorRole, isMemberRole } from '../../members/member-row.js';
import type { GroupParent } from '../group-parent.js';
import { selects } from './selects.js';
import { groupViewer } from './viewer-role.js';

/** The reference's object guard: private collections need a signed-in caller, whatever the group. */
async function requireSignedIn(ctx: GraphQLContext, object: string): Promise<void> {
  if (!(await ctx.viewer())) throw new Unauthenticated(`Not authorized to access object ${object}`);
}

const details = (group: GroupParent, ctx: GraphQLContext) => ctx.loaders.groups.details.load(group.id);

// id, domain, local, summary, suspended, manuallyApprovesFollowers and the counts are read as stored.
export const Group: GroupResolvers = {
  type: () => 'GROUP',
  types: () => 'GROUP',
  preferredUsername: (group) => group.username,
  name: (group) => group.displayName,
  url: (group) => group.url ?? group.uri,
  avatar: (group, _args, ctx) => picture(group, 'avatar', ctx),
  banner: (group, _args, ctx) => picture(group, 'banner', ctx),
  visibility: async (group, _args, ctx) => (await details(group, ctx)).visibility,
  openness: async (group, _args, ctx) => (await details(group, ctx)).openness,
  membersCount: async (group, _args, ctx) => (await details(group, ctx)).membersCount,
  physicalAddress: async (group, _args, ctx) => {
    const { physicalAddressId } = await details(group, ctx);
    return physicalAddressId === null ? null : ctx.loaders.events.addresses.load(physicalAddressId);
  },
  /** Its administrators and instance moderators; others get the reference's raw refusals. */
  mediaSize: async (group, _args, ctx) => {
    const caller = await groupViewer(ctx, group.id);
    if (!caller.signedIn) throw new Unauthenticated('unauthenticated');
    if (!isAdministratorRole(caller.role) && !caller.instanceModerator) throw new Forbidden('unauthorized');
    return ctx.loaders.media.actorSize.load(group.id);
  },
  /** Public events for anyone; every published one for members and instance moderators. */
  organizedEvents: async (group, args, ctx) => {
    const caller = await groupViewer(ctx, group.id);
    return ctx.loaders.groups.events.load({
      groupId: group.id,
      scope: isMemberRole(caller.role) || caller.instanceModerator ? 'members' : 'public',
      after: args.afterDatetime ?? null,
      before: args.beforeDatetime ?? null,
      order: args.order ?? 'BEGINS_ON',
      direction: args.orderDirection ?? 'ASC',
      page: args.page ?? 1,
      limit: args.limit ?? 10,
    });
  },
  /** Behaviour 23: anonymous callers get the count, and are refused the elements; members and instance moderators get the list, others the count. */
  members: async (group, { name, roles, page, limit }, ctx, info) => {
    const elements = selects(info, 'elements');
    if (elements) await requireSignedIn(ctx, 'member');
    const caller = await groupViewer(ctx, group.id);
    if (!isMemberRole(caller.role) && !caller.instanceModerator) {
      return { elements: [], total: (await details(group, ctx)).membersCount };
    }
    const filter = { roles: parseRoles(roles ?? ''), name: name ?? null };
    // The group page asks only the count: no page of rows is read for it.
    if (!elements)
      return { elements: [], total: await ctx.loaders.members.view.totalOfGroup(group.id, filter) };
    return ctx.loaders.members.view.ofGroup(group.id, filter, { page: page ?? 1, limit: limit ?? 10 });
  },
};

/** `roles` as the reference reads it: comma-separated, any case; unknown names are left out. */
function parseRoles(roles: string) {
  const known = [
    'NOT_APPROVED',
    'INVITED',
    'MEMBER',
    'MODERATOR',
    'ADMINISTRATOR',
    'CREATOR',
    'REJECTED',
  ] as const;
  return roles
    .split(',')
    .map((role) => role.trim().toUpperCase())
    .filter((role): role is (typeof known)[number] => (known as readonly string[]).includes(role));
}
