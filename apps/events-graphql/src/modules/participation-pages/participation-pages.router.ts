import { AppError } from '@agora/core';
import { Router, type Response } from 'express';
import type { AppContext } from '../../context.js';
import { PARTICIPATION_MESSAGES } from '../participations/participation.service.js';
import {
  PARTICIPATION_PAGE_HEADERS,
  renderParticipationPage,
  type ParticipationPage,
} from './participation-page.html.js';
import { ParticipationPagesView } from './participation-pages.view.js';

const CONFIRM_PATH = '/participation/email/confirm/:token';
const CANCEL_PATH = '/participation/email/cancel/:uuid/:token';

/**
 * The pages the anonymous participation e-mails link to, at the reference web client's paths (spec
 * not-shown.md §4): a GET shows what the link will do and a button; the POST of that button confirms
 * or cancels. A GET never changes anything, since mail scanners follow links.
 */
export function participationPagesRouter(
  ctx: Pick<AppContext, 'sequelize' | 'participations' | 'anonymousActor' | 'instanceConfig' | 'logger'>,
): Router {
  const router = Router();
  const view = new ParticipationPagesView(ctx.sequelize);
  const send = (res: Response, status: number, page: Omit<ParticipationPage, 'instanceName'>) =>
    res
      .status(status)
      .set(PARTICIPATION_PAGE_HEADERS)
      .send(renderParticipationPage({ instanceName: ctx.instanceConfig.settings().instanceName, ...page }));
  const refused = (res: Response, heading: string, error: unknown) => {
    if (!(error instanceof AppError) || error.kind === 'Internal') throw error;
    // The refusals are the service's plain strings; their kind gives the status.
    send(res, error.kind === 'BadInput' ? 422 : error.status, { heading, lines: [error.message] });
  };

  router.get(CONFIRM_PATH, async (req, res) => {
    const found = await view.byConfirmationToken(req.params.token);
    const heading = 'Confirm your participation';
    if (!found) return send(res, 404, { heading, lines: [PARTICIPATION_MESSAGES.invalidToken] });
    if (found.role !== 'NOT_CONFIRMED') {
      return send(res, 200, {
        heading,
        lines: [`Your participation in ${found.eventTitle} is already confirmed.`],
        eventUrl: found.eventUrl,
      });
    }
    send(res, 200, {
      heading,
      lines: [`Confirm your e-mail address to take part in ${found.eventTitle}.`],
      form: { action: req.originalUrl, button: 'Confirm my participation' },
      eventUrl: found.eventUrl,
    });
  });

  router.post(CONFIRM_PATH, async (req, res) => {
    const heading = 'Confirm your participation';
    const found = await view.byConfirmationToken(req.params.token);
    if (!found) return send(res, 404, { heading, lines: [PARTICIPATION_MESSAGES.invalidToken] });
    try {
      const confirmed = await ctx.participations.confirm(req.params.token);
      const title = found.eventTitle;
      send(res, 200, {
        heading: 'Participation confirmed',
        lines: [
          confirmed.role === 'PARTICIPANT'
            ? `You take part in ${title}. See you there!`
            : `Your participation in ${title} is confirmed; the organizer will approve it.`,
        ],
        eventUrl: found.eventUrl,
      });
    } catch (error) {
      refused(res, heading, error);
    }
  });

  router.get(CANCEL_PATH, async (req, res) => {
    const heading = 'Cancel your participation';
    const found = await view.byCancellationToken(req.params.uuid, req.params.token);
    if (!found) return send(res, 404, { heading, lines: [PARTICIPATION_MESSAGES.participantNotFound] });
    send(res, 200, {
      heading,
      lines: [`You take part in ${found.eventTitle}. Cancel this participation?`],
      form: { action: req.originalUrl, button: 'Cancel my participation' },
      eventUrl: found.eventUrl,
    });
  });

  router.post(CANCEL_PATH, async (req, res) => {
    const heading = 'Cancel your participation';
    const found = await view.byCancellationToken(req.params.uuid, req.params.token);
    if (!found) return send(res, 404, { heading, lines: [PARTICIPATION_MESSAGES.participantNotFound] });
    try {
      await ctx.participations.leave(null, {
        eventId: found.eventId,
        actorId: await ctx.anonymousActor.id(),
        token: req.params.token,
      });
      send(res, 200, {
        heading: 'Participation cancelled',
        lines: [`You no longer take part in ${found.eventTitle}.`],
        eventUrl: found.eventUrl,
      });
    } catch (error) {
      refused(res, heading, error);
    }
  });
  return router;
}
