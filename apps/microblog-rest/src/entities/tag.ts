import type { TagView } from '../modules/tags/tag.service.js';
import { tagUrl } from './status.js';

/** Tag (not-shown.md §2.3): `name`, `url`, `history[]` (numbers as strings), `following` when signed in. */
export interface TagJson {
  id?: string;
  name: string;
  url: string;
  history: Array<{ day: string; uses: string; accounts: string }>;
  following?: boolean;
  featuring?: boolean;
}

export function serializeTag(view: TagView, publicUrl: string): TagJson {
  const json: TagJson = {
    ...(view.id !== null ? { id: view.id } : {}),
    name: view.name,
    url: tagUrl(publicUrl, view.name),
    history: view.history.map((entry) => ({
      day: String(entry.day),
      uses: String(entry.uses),
      accounts: String(entry.accounts),
    })),
  };
  if (view.following !== null) {
    json.following = view.following;
    json.featuring = false;
  }
  return json;
}
