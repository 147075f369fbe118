import { Router } from 'express';
import { z } from 'zod';
import { serializeAnnouncement } from '../../entities/announcement.js';
import { methodNotAllowed } from '../../http/errors.js';
import { pathParam, validated } from '../../http/request-schema.js';
import type { AccountService } from '../../modules/accounts/account.service.js';
import type { AnnouncementService } from '../../modules/announcements/index.js';
import { userIdOf, type BearerGuards } from '../../modules/oauth/bearer.js';

export interface AnnouncementsRouterDeps {
  announcements: AnnouncementService;
  accounts: AccountService;
  guards: BearerGuards;
  publicUrl: string;
}

const byId = z.object({ id: pathParam });
const byReaction = z.object({ id: pathParam, name: pathParam });

/**
 * /api/v1/announcements (Mastodon 3.1): the published, current announcements with the caller's
 * `read` and reactions; dismiss; add and remove a reaction (both answer `{}`).
 */
export function announcementsRouter(deps: AnnouncementsRouterDeps): Router {
  const { announcements, accounts, guards, publicUrl } = deps;
  const viewer = async (res: Parameters<typeof userIdOf>[0]) => accounts.activeAccountId(userIdOf(res));
  const router = Router();
  router
    .route('/api/v1/announcements')
    .get(guards.requireUser('read'), async (_req, res) => {
      const list = await announcements.list(await viewer(res));
      res.json(list.map((view) => serializeAnnouncement(view, publicUrl)));
    })
    .all(methodNotAllowed(['GET']));
  router
    .route('/api/v1/announcements/:id/dismiss')
    .post(
      guards.requireUser('write:accounts'),
      validated({ params: byId }, async ({ params }, res) => {
        await announcements.dismiss(await viewer(res), params.id);
        res.json({});
      }),
    )
    .all(methodNotAllowed(['POST']));
  router
    .route('/api/v1/announcements/:id/reactions/:name')
    .put(
      guards.requireUser('write:favourites'),
      validated({ params: byReaction }, async ({ params }, res) => {
        await announcements.react(await viewer(res), params.id, params.name);
        res.json({});
      }),
    )
    .delete(
      guards.requireUser('write:favourites'),
      validated({ params: byReaction }, async ({ params }, res) => {
        await announcements.unreact(await viewer(res), params.id, params.name);
        res.json({});
      }),
    )
    .all(methodNotAllowed(['PUT', 'DELETE']));
  return router;
}
