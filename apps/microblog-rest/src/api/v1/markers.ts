import { Router } from 'express';
import { z } from 'zod';
import { isRowId } from '@agora/db';
import { serializeMarkers } from '../../entities/marker.js';
import { methodNotAllowed } from '../../http/errors.js';
import { paramsObject, validated } from '../../http/request-schema.js';
import { VALIDATION } from '../../http/validation-codes.js';
import type { AccountService } from '../../modules/accounts/account.service.js';
import {
  MARKER_TIMELINES,
  type MarkerService,
  type MarkerTimeline,
} from '../../modules/markers/marker.service.js';
import { userIdOf, type BearerGuards } from '../../modules/oauth/bearer.js';

/** `timeline[]`: the known timelines asked for (others are ignored, as the reference ignores them). */
const timelineList = z
  .unknown()
  .transform((value) =>
    (Array.isArray(value) ? value : value === undefined ? [] : [value]).filter(
      (item): item is MarkerTimeline =>
        typeof item === 'string' && (MARKER_TIMELINES as readonly string[]).includes(item),
    ),
  )
  .optional();

/** `home[last_read_id]` / `notifications[last_read_id]`: an id; anything else is 422. */
const position = z
  .unknown()
  .transform((value, ctx): string | undefined => {
    if (value === undefined || value === null) return undefined;
    const id =
      typeof value === 'object' && !Array.isArray(value)
        ? (value as Record<string, unknown>).last_read_id
        : undefined;
    const text = typeof id === 'number' ? String(id) : id;
    if (typeof text === 'string' && isRowId(text)) return text;
    ctx.addIssue({
      code: 'custom',
      message: text === undefined || text === '' ? VALIDATION.blank.message : VALIDATION.invalid.message,
      path: ['last_read_id'],
    });
    return undefined;
  })
  .optional();

/** /api/v1/markers: where the caller stopped reading home and notifications (read/write:statuses). */
export function markersRouter(
  markers: MarkerService,
  accounts: AccountService,
  guards: BearerGuards,
): Router {
  const router = Router();
  router
    .route('/api/v1/markers')
    .get(
      guards.requireUser('read:statuses'),
      validated({ query: z.object({ timeline: timelineList }) }, async ({ query }, res) => {
        const account = await accounts.activeAccount(userIdOf(res));
        res.json(serializeMarkers(await markers.get(account.id, query.timeline ?? [])));
      }),
    )
    .post(
      guards.requireUser('write:statuses'),
      validated(
        { body: paramsObject({ home: position, notifications: position }) },
        async ({ body }, res) => {
          const account = await accounts.activeAccount(userIdOf(res));
          const saved = await markers.save(account.id, {
            ...(body.home !== undefined ? { home: body.home } : {}),
            ...(body.notifications !== undefined ? { notifications: body.notifications } : {}),
          });
          res.json(serializeMarkers(saved));
        },
      ),
    )
    .all(methodNotAllowed(['GET', 'POST']));
  return router;
}
