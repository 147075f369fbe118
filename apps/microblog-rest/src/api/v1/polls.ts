import { Router } from 'express';
import { z } from 'zod';
import { serializePoll } from '../../entities/poll.js';
import { methodNotAllowed } from '../../http/errors.js';
import { pathParam, validated } from '../../http/request-schema.js';
import type { BearerGuards } from '../../modules/oauth/bearer.js';
import { voteParams } from '../../modules/polls/poll-params.js';
import type { PollService } from '../../modules/polls/poll.service.js';
import { callerAccount, optionalViewer, type StatusRouteDeps } from '../../modules/statuses/statuses-http.js';

export interface PollsRouterDeps extends StatusRouteDeps {
  polls: PollService;
  guards: BearerGuards;
}

const byId = { params: z.object({ id: pathParam }) };

/** /api/v1/polls/:id (public for a visible status) and /api/v1/polls/:id/votes (write:statuses). */
export function pollsRouter(deps: PollsRouterDeps): Router {
  const { polls, guards } = deps;
  const router = Router();

  router
    .route('/api/v1/polls/:id')
    .get(
      validated(byId, async ({ params }, res, req) => {
        const viewer = await optionalViewer(deps, req, res);
        res.json(serializePoll(await polls.get(params.id, viewer)));
      }),
    )
    .all(methodNotAllowed(['GET']));

  router
    .route('/api/v1/polls/:id/votes')
    .post(
      guards.requireUser('write:statuses'),
      validated({ ...byId, body: voteParams }, async ({ params, body }, res) => {
        const account = await callerAccount(deps, res);
        res.json(serializePoll(await polls.vote(account, params.id, body.choices)));
      }),
    )
    .all(methodNotAllowed(['POST']));

  return router;
}
