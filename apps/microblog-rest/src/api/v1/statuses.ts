import { Router } from 'express';
import { z } from 'zod';
import { serializeAccount } from '../../entities/account.js';
import { serializeMediaAttachment } from '../../entities/media-attachment.js';
import { serializeStatus } from '../../entities/status.js';
import { methodNotAllowed } from '../../http/errors.js';
import { ACCOUNT_PAGE, pageOf, pageRequest, setLinkHeader } from '../../http/link-pagination.js';
import { pathParam, validated } from '../../http/request-schema.js';
import type { BearerGuards } from '../../modules/oauth/bearer.js';
import { authOf } from '../../modules/oauth/bearer.js';
import { createStatusParams, editStatusParams, reblogParams } from '../../modules/statuses/status-params.js';
import {
  callerAccount,
  jsonArray,
  optionalViewer,
  statusJson,
  statusesJson,
  type StatusRouteDeps,
} from '../../modules/statuses/statuses-http.js';
import { loadAccounts } from '../../modules/statuses/views/accounts.view.js';
import type { ScheduledStatusService } from '../../modules/scheduled-statuses/scheduled-status.service.js';
import { serializeScheduledStatus } from '../../entities/scheduled-status.js';

export interface StatusesRouterDeps extends StatusRouteDeps {
  /** `scheduled_at` in the future: the status is kept and posted by a job. */
  scheduledStatuses: ScheduledStatusService;
  guards: BearerGuards;
  publicUrl: string;
  /** For the accounts of reblogged_by / favourited_by. */
  accountViews: Parameters<typeof loadAccounts>[0];
}

const byId = { params: z.object({ id: pathParam }) };
/** `id[]` (4.3, at most 20 as the reference). */
const idList = z
  .unknown()
  .transform((value) =>
    (Array.isArray(value) ? value : value === undefined ? [] : [value])
      .filter((item): item is string => typeof item === 'string')
      .slice(0, 20),
  )
  .optional();

/**
 * /api/v1/statuses: post, read, edit (history, source), delete, context, and the viewer's reblog,
 * favourite, bookmark, pin and conversation mute; reblogged_by and favourited_by.
 */
export function statusesRouter(deps: StatusesRouterDeps): Router {
  const { statuses, guards } = deps;
  const router = Router();

  router
    .route('/api/v1/statuses')
    .get(
      validated({ query: z.object({ id: idList }) }, async ({ query }, res, req) => {
        const viewer = await optionalViewer(deps, req, res);
        const ids = await statuses.visibleIds(query.id ?? [], viewer);
        res.type('json').send(jsonArray(await statusesJson(deps, ids, viewer)));
      }),
    )
    .post(
      guards.requireUser('write:statuses'),
      validated({ body: createStatusParams }, async ({ body }, res, req) => {
        const account = await callerAccount(deps, res);
        const key = req.get('Idempotency-Key');
        const input = {
          text: body.status,
          mediaIds: body.media_ids ?? [],
          inReplyToId: body.in_reply_to_id,
          sensitive: body.sensitive,
          spoilerText: body.spoiler_text,
          visibility: body.visibility,
          language: body.language,
          idempotencyKey: key === undefined || key === '' ? undefined : key,
          applicationId: authOf(res).application.id,
          poll: body.poll,
        };
        // A time in the past posts now, as the reference does; the near future is refused.
        if (body.scheduled_at !== undefined && body.scheduled_at.getTime() > Date.now()) {
          const scheduled = await deps.scheduledStatuses.schedule(account, input, body.scheduled_at);
          res.json(serializeScheduledStatus(scheduled, deps.json.mediaUrl));
          return;
        }
        const id = await statuses.create(account, input);
        res.json(await statusJson(deps, id, account.id));
      }),
    )
    .all(methodNotAllowed(['GET', 'POST']));

  router
    .route('/api/v1/statuses/:id')
    .get(
      validated(byId, async ({ params }, res, req) => {
        const viewer = await optionalViewer(deps, req, res);
        const row = await statuses.visibleRow(params.id, viewer);
        res.json(await statusJson(deps, row.id, viewer));
      }),
    )
    .put(
      guards.requireUser('write:statuses'),
      validated({ ...byId, body: editStatusParams }, async ({ params, body }, res) => {
        const account = await callerAccount(deps, res);
        await statuses.edit(account, params.id, {
          text: body.status,
          mediaIds: body.media_ids,
          sensitive: body.sensitive,
          spoilerText: body.spoiler_text,
          language: body.language,
          poll: body.poll ?? null,
        });
        res.json(await statusJson(deps, params.id, account.id));
      }),
    )
    .delete(
      guards.requireUser('write:statuses'),
      validated(byId, async ({ params }, res) => {
        const account = await callerAccount(deps, res);
        const removed = await statuses.remove(account, params.id);
        res.json(serializeStatus(removed, deps.json, { withText: true }));
      }),
    )
    .all(methodNotAllowed(['GET', 'PUT', 'DELETE']));

  router.get(
    '/api/v1/statuses/:id/context',
    validated(byId, async ({ params }, res, req) => {
      const viewer = await optionalViewer(deps, req, res);
      const { ancestors, descendants } = await statuses.context(params.id, viewer);
      // One hydration for both lists; the viewer's filters of the thread context apply.
      const all = await statusesJson(deps, [...ancestors, ...descendants], viewer, 'thread');
      const shown = new Map(all.map((item) => [item.id, item]));
      const json = (ids: string[]) => jsonArray(ids.flatMap((id) => shown.get(id) ?? []));
      res.type('json').send(`{"ancestors":${json(ancestors)},"descendants":${json(descendants)}}`);
    }),
  );

  router.get(
    '/api/v1/statuses/:id/history',
    validated(byId, async ({ params }, res, req) => {
      const viewer = await optionalViewer(deps, req, res);
      const versions = await statuses.history(params.id, viewer);
      res.json(
        versions.map((version) => ({
          content: version.content,
          spoiler_text: version.spoilerText,
          sensitive: version.sensitive,
          created_at: version.createdAt.toISOString(),
          account: serializeAccount(version.account, deps.publicUrl),
          poll: null,
          media_attachments: version.media.map((media) =>
            serializeMediaAttachment(media, deps.json.mediaUrl),
          ),
          emojis: [],
        })),
      );
    }),
  );

  router.get(
    '/api/v1/statuses/:id/source',
    guards.requireUser('read:statuses'),
    validated(byId, async ({ params }, res) => {
      const account = await callerAccount(deps, res);
      const row = await statuses.source(params.id, account.id);
      res.json({ id: row.id, text: row.text, spoiler_text: row.spoilerText });
    }),
  );

  // The viewer's actions: each answers the status as the viewer now sees it.
  const action = (
    path: string,
    scope: Parameters<BearerGuards['requireUser']>[0],
    run: (account: Awaited<ReturnType<typeof callerAccount>>, id: string, body: unknown) => Promise<string>,
  ) =>
    router
      .route(`/api/v1/statuses/:id/${path}`)
      .post(
        guards.requireUser(scope),
        validated({ ...byId, body: z.unknown() }, async ({ params, body }, res) => {
          const account = await callerAccount(deps, res);
          const id = await run(account, params.id, body);
          res.json(await statusJson(deps, id, account.id));
        }),
      )
      .all(methodNotAllowed(['POST']));

  action('reblog', 'write:statuses', (account, id, body) => {
    const parsed = reblogParams.safeParse(body);
    return statuses.reblog(account, id, parsed.success ? parsed.data.visibility : undefined);
  });
  action('unreblog', 'write:statuses', (account, id) => statuses.unreblog(account, id));
  action('favourite', 'write:favourites', (account, id) => statuses.favourite(account, id, true));
  action('unfavourite', 'write:favourites', (account, id) => statuses.favourite(account, id, false));
  action('bookmark', 'write:bookmarks', (account, id) => statuses.bookmark(account, id, true));
  action('unbookmark', 'write:bookmarks', (account, id) => statuses.bookmark(account, id, false));
  action('pin', 'write:accounts', (account, id) => statuses.pin(account, id, true));
  action('unpin', 'write:accounts', (account, id) => statuses.pin(account, id, false));
  action('mute', 'write:mutes', (account, id) => statuses.muteConversation(account, id, true));
  action('unmute', 'write:mutes', (account, id) => statuses.muteConversation(account, id, false));

  for (const kind of ['reblogs', 'favourites'] as const) {
    const path = kind === 'reblogs' ? 'reblogged_by' : 'favourited_by';
    router.get(
      `/api/v1/statuses/:id/${path}`,
      validated({ ...byId, query: z.object(ACCOUNT_PAGE) }, async ({ params, query }, res, req) => {
        const viewer = await optionalViewer(deps, req, res);
        const page = pageRequest(query, 40);
        const rows = await statuses.interactors(kind, params.id, viewer, page);
        const accounts = await loadAccounts(
          deps.accountViews,
          rows.map((row) => row.accountId),
        );
        setLinkHeader(
          req,
          res,
          deps.publicUrl,
          pageOf(rows, (row) => row.cursor),
        );
        res.json(
          rows.flatMap((row) => {
            const view = accounts.get(row.accountId);
            return view ? [serializeAccount(view, deps.publicUrl)] : [];
          }),
        );
      }),
    );
  }

  return router;
}
