import type { ListView } from '../modules/lists/list.service.js';

/** Mastodon's List entity (2.1; replies_policy 3.3, exclusive 4.2). */
export interface ListJson {
  id: string;
  title: string;
  replies_policy: string;
  exclusive: boolean;
}

export function serializeList(view: ListView): ListJson {
  return { id: view.id, title: view.title, replies_policy: view.repliesPolicy, exclusive: view.exclusive };
}
