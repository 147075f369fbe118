import type { GraphQLContext } from '../../../graphql/context.js';
import type { MemberRole } from '../../members/member-row.js';
import { viewerProfile } from './acting-profile.js';

/** What the caller is to a group: its default profile's role there, and whether it moderates the instance. */
export interface GroupViewer {
  signedIn: boolean;
  role: MemberRole | null;
  instanceModerator: boolean;
}

export async function groupViewer(ctx: GraphQLContext, groupId: string): Promise<GroupViewer> {
  const viewer = await ctx.viewer();
  if (!viewer) return { signedIn: false, role: null, instanceModerator: false };
  const profile = await viewerProfile(ctx);
  const role = profile ? await ctx.loaders.groups.roles.load(`${profile.id}:${groupId}`) : null;
  return { signedIn: true, role, instanceModerator: ctx.app.users.canModerate(viewer) };
}
