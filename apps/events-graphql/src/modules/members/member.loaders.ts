import DataLoader from 'dataloader';
import type { AppContext } from '../../context.js';
import type { MemberRow } from './member-row.js';
import { MembersView } from './views/members.view.js';

/** Batches of one operation (`ctx.loaders.members`). */
export interface MemberLoaders {
  /** Every membership of a profile (`Person.memberOf`). */
  memberOf: DataLoader<string, MemberRow[]>;
  view: MembersView;
}

export function createMemberLoaders(app: AppContext): MemberLoaders {
  const view = new MembersView(app);
  return {
    view,
    memberOf: new DataLoader(async (actorIds) => {
      const found = await view.memberOf(actorIds);
      return actorIds.map((id) => found.get(id) ?? []);
    }),
  };
}
