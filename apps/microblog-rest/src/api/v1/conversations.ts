import { Router } from 'express';
import { z } from 'zod';
import { serializeAccount } from '../../entities/account.js';
import { serializeConversation, type ConversationJson } from '../../entities/conversation.js';
import { serializeStatus } from '../../entities/status.js';
import { methodNotAllowed } from '../../http/errors.js';
import { pageParams, setLinkHeader } from '../../http/link-pagination.js';
import { pathParam, validated } from '../../http/request-schema.js';
import type {
  ConversationRow,
  ConversationService,
} from '../../modules/conversations/conversation.service.js';
import type { BearerGuards } from '../../modules/oauth/bearer.js';
import { callerAccount, type StatusRouteDeps } from '../../modules/statuses/statuses-http.js';
import { loadAccounts } from '../../modules/statuses/views/accounts.view.js';

export interface ConversationsRouterDeps extends StatusRouteDeps {
  conversations: ConversationService;
  guards: BearerGuards;
  publicUrl: string;
  accountViews: Parameters<typeof loadAccounts>[0];
}

const byId = { params: z.object({ id: pathParam }) };

/** /api/v1/conversations: the caller's direct conversations; read and remove one. */
export function conversationsRouter(deps: ConversationsRouterDeps): Router {
  const { conversations, guards, publicUrl } = deps;
  const router = Router();

  // A page's accounts and last statuses in one batch each (no query per conversation).
  const toJson = async (rows: ConversationRow[], viewerId: string): Promise<ConversationJson[]> => {
    const statusIds = rows.flatMap((row) => (row.lastStatusId === null ? [] : [row.lastStatusId]));
    const [statuses, accounts] = await Promise.all([
      deps.statuses.views(statusIds, viewerId),
      loadAccounts(
        deps.accountViews,
        rows.flatMap((row) => row.participantIds),
      ),
    ]);
    return rows.map((row) => {
      const status = row.lastStatusId === null ? undefined : statuses.get(row.lastStatusId);
      return serializeConversation(
        row,
        row.participantIds.flatMap((id) => {
          const view = accounts.get(id);
          return view ? [serializeAccount(view, publicUrl)] : [];
        }),
        status ? serializeStatus(status, deps.json) : null,
      );
    });
  };

  router
    .route('/api/v1/conversations')
    .get(
      guards.requireUser('read:statuses'),
      validated({ query: pageParams(20, 40) }, async ({ query }, res, req) => {
        const account = await callerAccount(deps, res);
        const page = await conversations.list(account.id, query);
        setLinkHeader(req, res, publicUrl, page, query.limit);
        res.json(await toJson(page.items, account.id));
      }),
    )
    .all(methodNotAllowed(['GET']));

  router
    .route('/api/v1/conversations/:id/read')
    .post(
      guards.requireUser('write:conversations'),
      validated(byId, async ({ params }, res) => {
        const account = await callerAccount(deps, res);
        const row = await conversations.markRead(account.id, params.id);
        const [json] = await toJson([row], account.id);
        res.json(json);
      }),
    )
    .all(methodNotAllowed(['POST']));

  router
    .route('/api/v1/conversations/:id')
    .delete(
      guards.requireUser('write:conversations'),
      validated(byId, async ({ params }, res) => {
        const account = await callerAccount(deps, res);
        await conversations.remove(account.id, params.id);
        res.json({});
      }),
    )
    .all(methodNotAllowed(['DELETE']));

  return router;
}
