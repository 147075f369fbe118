import type { AppContext } from '../../context.js';
import { FollowersView } from './views/followers.view.js';

/** The followers module's reads for one operation (`ctx.loaders.followers`). */
export interface FollowerLoaders {
  view: FollowersView;
}

export function createFollowerLoaders(app: AppContext): FollowerLoaders {
  return { view: new FollowersView(app) };
}
