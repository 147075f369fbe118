import type { Role } from '@agora/auth';
import { preparedStatement } from '@agora/db';
import type { ActorStore } from '@agora/federation';
import type { Sequelize } from 'sequelize';
import type { SerializableAccount } from '../../../entities/account.js';
import type { RemoteAccountImages } from '../../accounts/account.service.js';

/**
 * The accounts of a page of statuses in two queries (actors; owners' roles and settings), whatever
 * the page's size, plus one for the cached images of the remote ones.
 */
export async function loadAccounts(
  deps: { sequelize: Sequelize; actors: ActorStore; remoteImages?: RemoteAccountImages | undefined },
  ids: readonly string[],
): Promise<Map<string, SerializableAccount>> {
  const unique = [...new Set(ids)];
  const views = new Map<string, SerializableAccount>();
  if (unique.length === 0) return views;
  const [actors, owners] = await Promise.all([
    deps.actors.findByIds(unique),
    OWNERS.rows(deps.sequelize, [unique]),
  ]);
  const ownerOf = new Map(owners.map((row) => [row.id, row]));
  const remote: SerializableAccount[] = [];
  for (const actor of actors.values()) {
    if (!actor.local) {
      remote.push({ actor, role: null, hideCollections: null });
      continue;
    }
    const owner = ownerOf.get(actor.id);
    views.set(actor.id, {
      actor,
      role: owner?.role ?? null,
      hideCollections: owner?.hideCollections ?? false,
    });
  }
  // Remote accounts' cached images: one lookup for the page, not one per account.
  const withImages =
    deps.remoteImages && remote.length > 0 ? await deps.remoteImages.withImagesAll(remote) : remote;
  for (const view of withImages) views.set(view.actor.id, view);
  return views;
}

/** The local accounts' roles and settings (remote ones have none). */
const OWNERS = preparedStatement<
  { id: string; role: Role | null; hideCollections: boolean | null },
  [ids: string[]]
>({
  name: 'microblog_account_view_owners',
  text: `SELECT a.id::text AS id, u.role, coalesce(s.hide_collections, false) AS "hideCollections"
           FROM actors a
           LEFT JOIN users u ON u.id = a.user_id
           LEFT JOIN account_settings s ON s.actor_id = a.id
          WHERE a.id = ANY($1::bigint[]) AND a.domain IS NULL`,
});
