import { Router, type NextFunction, type Request, type Response } from 'express';
import {
  ACTIVITY_JSON_UTF8,
  collectionPageOf,
  orderedCollection,
  orderedCollectionPage,
  wantsActivityPub,
  type ActorStore,
  type Federation,
} from '@agora/federation';
import { QueryTypes, type Sequelize } from 'sequelize';
import { EVENT_COLUMNS, type EventRow } from '../modules/events/event-row.js';
import { roleInGroup } from '../modules/members/member-roles.js';
import { MEMBER_OF_GROUP, isMemberRole, type MemberRole } from '../modules/members/member-row.js';
import { eventObject } from './event-objects.js';
import type { EventFederation } from './events.federation.js';
import type {
  GroupCollectionName,
  GroupCollectionReader,
  GroupCollectionSource,
} from './group-collection-source.js';
import { memberObject, type GroupMemberFederation } from './group-members.federation.js';

const UNSIGNED = 'Only requests signed by a member of the group may read this';
const NOT_A_MEMBER = 'Only members of the group may read this';

/** Items per page of a group's collections, as the reference pages them. */
export const GROUP_COLLECTION_PAGE_SIZE = 10;

/**
 * A local group's collections (`/@group/<name>`, not-shown.md §5) by content negotiation, and its
 * memberships (`/member/<uuid>`, for the member and the group's members): an
 * `OrderedCollection` with its first page embedded, then `?page=N`, 10 items a page. A request signed
 * (HTTP signature, verified by the federation package) by an approved member reads as a member;
 * `membersOnly` collections answer 401 unsigned and 403 to anyone else. Unknown groups are 404;
 * browsers fall through to the app's 404.
 */
export function groupFederationRouter(deps: {
  sources: readonly GroupCollectionSource[];
  memberFederation: GroupMemberFederation;
  actors: ActorStore;
  federation: Federation;
  sequelize: Sequelize;
}): Router {
  const router = Router();
  const byName = new Map(deps.sources.map((source) => [source.name, source]));
  const send = (res: Response, status: number, document: Record<string, unknown>) =>
    void res.status(status).set('Content-Type', ACTIVITY_JSON_UTF8).send(JSON.stringify(document));
  const signer = (req: Request) =>
    deps.federation.signedFetcher({ method: req.method, url: req.originalUrl, headers: req.headers });
  router.get('/member/:uuid', (req: Request, res: Response, next: NextFunction) => {
    res.vary('Accept');
    if (!wantsActivityPub(req.get('accept'))) return next();
    void (async () => {
      const found = await deps.memberFederation.memberDocument(String(req.params.uuid), await signer(req));
      if (found === null) return send(res, 404, { error: 'Record not found' });
      if (found === 'unsigned') return send(res, 401, { error: UNSIGNED });
      if (found === 'refused') return send(res, 403, { error: NOT_A_MEMBER });
      if ('redirect' in found) return res.redirect(302, found.redirect);
      send(res, 200, found.document);
    })().catch(next);
  });
  router.get('/@:name/:collection', (req: Request, res: Response, next: NextFunction) => {
    const source = byName.get(String(req.params.collection) as GroupCollectionName);
    if (!source) return next();
    res.vary('Accept');
    if (!wantsActivityPub(req.get('accept'))) return next();
    void (async () => {
      const group = await deps.actors.findByUsername(String(req.params.name), null, ['Group']);
      if (!group?.local || group.suspended) return send(res, 404, { error: 'Record not found' });
      const fetcher = await signer(req);
      const reader: GroupCollectionReader = {
        member: fetcher !== null && isMemberRole(await roleInGroup(deps.sequelize, fetcher.id, group.id)),
      };
      if (source.membersOnly && !reader.member) {
        return fetcher ? send(res, 403, { error: NOT_A_MEMBER }) : send(res, 401, { error: UNSIGNED });
      }
      const id = `${group.uri}/${source.name}`;
      const page = collectionPageOf(req.query.page);
      const [total, items] = await Promise.all([
        source.count(Number(group.id), reader),
        source.items(
          Number(group.id),
          reader,
          ((page ?? 1) - 1) * GROUP_COLLECTION_PAGE_SIZE,
          GROUP_COLLECTION_PAGE_SIZE,
        ),
      ]);
      const shown = orderedCollectionPage(
        id,
        page ?? 1,
        total,
        items,
        (page ?? 1) * GROUP_COLLECTION_PAGE_SIZE < total,
      );
      send(res, 200, page === null ? orderedCollection(id, total, shown) : shown);
    })().catch(next);
  });
  return router;
}

/** The group's members (approved roles), as `Member` objects; members only. */
export function membersCollection(sequelize: Sequelize): GroupCollectionSource {
  return {
    name: 'members',
    membersOnly: true,
    async count(groupActorId) {
      const [row] = await sequelize.query<{ count: number }>(
        'SELECT count(*)::int AS count FROM members WHERE parent_id = :groupActorId AND role IN (:roles)',
        { type: QueryTypes.SELECT, replacements: { groupActorId, roles: MEMBER_OF_GROUP } },
      );
      return row?.count ?? 0;
    },
    async items(groupActorId, _reader, offset, limit) {
      const rows = await sequelize.query<{ url: string; role: MemberRole; actor: string; group: string }>(
        `SELECT m.url, m.role, a.uri AS actor, g.uri AS "group"
           FROM members m JOIN actors a ON a.id = m.actor_id JOIN actors g ON g.id = m.parent_id
          WHERE m.parent_id = :groupActorId AND m.role IN (:roles)
          ORDER BY m.id DESC OFFSET :offset LIMIT :limit`,
        { type: QueryTypes.SELECT, replacements: { groupActorId, roles: MEMBER_OF_GROUP, offset, limit } },
      );
      return rows.map((row) => memberObject(row, { uri: row.actor }, { uri: row.group }));
    },
  };
}

/** The group's accepted followers, by their actor ids; anyone who may see the group. */
export function followersCollection(sequelize: Sequelize): GroupCollectionSource {
  const accepted =
    'f.target_actor_id = :groupActorId AND f.accepted_at IS NOT NULL AND a.suspended_at IS NULL';
  return {
    name: 'followers',
    membersOnly: false,
    async count(groupActorId) {
      const [row] = await sequelize.query<{ count: number }>(
        `SELECT count(*)::int AS count FROM follows f JOIN actors a ON a.id = f.actor_id WHERE ${accepted}`,
        { type: QueryTypes.SELECT, replacements: { groupActorId } },
      );
      return row?.count ?? 0;
    },
    async items(groupActorId, _reader, offset, limit) {
      const rows = await sequelize.query<{ uri: string }>(
        `SELECT a.uri FROM follows f JOIN actors a ON a.id = f.actor_id WHERE ${accepted}
          ORDER BY f.id DESC OFFSET :offset LIMIT :limit`,
        { type: QueryTypes.SELECT, replacements: { groupActorId, offset, limit } },
      );
      return rows.map((row) => row.uri);
    },
  };
}

/**
 * The group's published events as `Event` objects (the events federation's documents): public and
 * unlisted ones for anyone, its private ones for its members too.
 */
export function eventsCollection(
  sequelize: Sequelize,
  events: EventFederation,
  publicUrl: string,
): GroupCollectionSource {
  const visible = (reader: GroupCollectionReader) =>
    `e.attributed_to_id = :groupActorId AND e.local AND NOT e.draft AND e.published_at IS NOT NULL
     AND e.visibility IN (${reader.member ? `'PUBLIC', 'UNLISTED', 'PRIVATE'` : `'PUBLIC', 'UNLISTED'`})`;
  return {
    name: 'events',
    membersOnly: false,
    async count(groupActorId, reader) {
      const [row] = await sequelize.query<{ count: number }>(
        `SELECT count(*)::int AS count FROM events e WHERE ${visible(reader)}`,
        { type: QueryTypes.SELECT, replacements: { groupActorId } },
      );
      return row?.count ?? 0;
    },
    async items(groupActorId, reader, offset, limit) {
      const rows = await sequelize.query<EventRow>(
        `SELECT ${EVENT_COLUMNS} FROM events e WHERE ${visible(reader)}
          ORDER BY e.begins_on DESC, e.id DESC OFFSET :offset LIMIT :limit`,
        { type: QueryTypes.SELECT, replacements: { groupActorId, offset, limit } },
      );
      return (await events.eventSources(rows)).map((source) => eventObject(source, publicUrl));
    },
  };
}

/** The sources this branch provides; the composition root adds the other modules' beside them. */
export function groupMembershipCollections(
  sequelize: Sequelize,
  events: EventFederation,
  publicUrl: string,
): GroupCollectionSource[] {
  return [
    membersCollection(sequelize),
    followersCollection(sequelize),
    eventsCollection(sequelize, events, publicUrl),
  ];
}
