import { Router, type Request } from 'express';
import { QueryTypes, type Sequelize } from 'sequelize';
import { isAppError } from '@agora/core';
import { isRowId } from '@agora/db';
import { wantsActivityPub, type ActorStore } from '@agora/federation';
import { serializeAccount } from '../entities/account.js';
import { serializeStatus, type StatusJsonContext } from '../entities/status.js';
import type { AccountService, RemoteAccountImages } from '../modules/accounts/account.service.js';
import type { InstanceService } from '../modules/instance/instance.service.js';
import { sessionCookieName } from '../modules/oauth/authorize/sign-in-flow.js';
import { readCookies } from '../modules/sessions/cookies.js';
import type { SessionActivations } from '../modules/sessions/session-activations.js';
import type { StatusService } from '../modules/statuses/status.service.js';
import { loadAccounts } from '../modules/statuses/views/accounts.view.js';
import { accountPage, pageHeaders, statusPage, type PageFrame } from './profile-html.js';

export interface ProfilePagesDeps {
  sequelize: Sequelize;
  actors: ActorStore;
  remoteImages: RemoteAccountImages;
  accounts: AccountService;
  statuses: StatusService;
  sessions: SessionActivations;
  instance: InstanceService;
  json: StatusJsonContext;
  /** host[:port] of the public URL, for `@name@host`. */
  domain: string;
}

/** Statuses per account page (the API's default page). */
const PAGE_SIZE = 20;

/**
 * The pages a person opens from a link, as the references serve them: `/@name` (an account and its
 * latest public and unlisted posts, newest first, `?max_id=` for older ones) and `/@name/:id` (one
 * post), with OpenGraph tags for link previews and the ActivityPub document as `alternate`.
 * Followers-only and direct posts are never shown here (404), signed in or not. A request for
 * ActivityPub on these URLs is sent to the document's own id.
 */
export function profilePagesRouter(deps: ProfilePagesDeps): Router {
  const router = Router();
  const mediaOrigin = new URL(deps.json.mediaUrl('x')).origin;

  router.get('/@:name', async (req, res, next) => {
    res.vary('Accept');
    const actor = await localAccount(String(req.params.name));
    if (wantsActivityPub(req.get('accept'))) {
      if (actor) res.redirect(302, actor.uri);
      else next();
      return;
    }
    if (!actor || !wantsHtml(req)) {
      next();
      return;
    }
    const maxId = typeof req.query.max_id === 'string' && isRowId(req.query.max_id) ? req.query.max_id : null;
    const [ids, views] = await Promise.all([
      publicStatusIds(actor.id, maxId),
      loadAccounts({ sequelize: deps.sequelize, actors: deps.actors, remoteImages: deps.remoteImages }, [
        actor.id,
      ]),
    ]);
    const account = views.get(actor.id);
    if (!account) {
      next();
      return;
    }
    const statusViews = await deps.statuses.views(ids.slice(0, PAGE_SIZE), null);
    const statuses = ids.slice(0, PAGE_SIZE).flatMap((id) => {
      const view = statusViews.get(id);
      return view ? [serializeStatus(view, deps.json)] : [];
    });
    const last = statuses.at(-1);
    const olderUrl = ids.length > PAGE_SIZE && last ? `${req.path}?max_id=${last.id}` : null;
    const frame = await frameOf(req);
    res.set(pageHeaders(mediaOrigin, frame.signedInAs !== null)).send(
      accountPage(
        {
          account: serializeAccount(account, deps.json.publicUrl),
          statuses,
          olderUrl,
          domain: deps.domain,
        },
        frame,
      ),
    );
  });

  router.get('/@:name/:id', async (req, res, next) => {
    res.vary('Accept');
    const actor = await localAccount(String(req.params.name));
    const id = String(req.params.id);
    const view = actor && isRowId(id) ? await visibleStatus(id) : null;
    // Only the author's own, original, public or unlisted post has a page here.
    const shown =
      view !== null && actor !== null && view.row.accountId === actor.id && view.row.reblogOfId === null;
    if (!shown) {
      next();
      return;
    }
    if (wantsActivityPub(req.get('accept'))) {
      res.redirect(302, view.row.uri ?? `${actor.uri}/statuses/${view.row.id}`);
      return;
    }
    if (!wantsHtml(req)) {
      next();
      return;
    }
    const frame = await frameOf(req);
    res
      .set(pageHeaders(mediaOrigin, frame.signedInAs !== null))
      .send(statusPage({ status: serializeStatus(view, deps.json), domain: deps.domain }, frame));
  });

  async function localAccount(name: string) {
    if (!/^[A-Za-z0-9_.-]{1,100}$/.test(name)) return null;
    const actor = await deps.actors.findByUsername(name, null);
    return actor?.local && !actor.suspended ? actor : null;
  }

  async function visibleStatus(id: string) {
    try {
      const view = await deps.statuses.visibleView(id, null);
      return view.row.visibility === 'public' || view.row.visibility === 'unlisted' ? view : null;
    } catch (error) {
      if (isAppError(error) && error.status === 404) return null;
      throw error;
    }
  }

  /** One more than a page, so the page knows whether older posts exist (statuses_account_id_idx). */
  async function publicStatusIds(accountId: string, maxId: string | null): Promise<string[]> {
    const rows = await deps.sequelize.query<{ id: string }>(
      `SELECT id::text AS id FROM statuses
        WHERE account_id = $1 AND deleted_at IS NULL AND reblog_of_id IS NULL
          AND visibility IN ('public', 'unlisted') AND ($2::bigint IS NULL OR id < $2::bigint)
        ORDER BY id DESC LIMIT $3`,
      { type: QueryTypes.SELECT, bind: [accountId, maxId, PAGE_SIZE + 1] },
    );
    return rows.map((row) => row.id);
  }

  /** The instance's title and who is signed in on this browser (the sign-in pages' session). */
  async function frameOf(req: Request): Promise<PageFrame> {
    const [settings, session] = await Promise.all([
      deps.instance.settings(),
      deps.sessions.lookup(readCookies(req).get(sessionCookieName(deps.json.publicUrl))),
    ]);
    let signedInAs: string | null = null;
    if (session) {
      try {
        signedInAs = `@${(await deps.accounts.activeAccount(session.userId)).username}`;
      } catch (error) {
        if (!isAppError(error)) throw error; // a user without an account (yet) is shown as nobody
      }
    }
    return { instanceTitle: settings.title, signedInAs };
  }

  return router;
}

/** Browsers (and link-preview fetchers) ask for HTML or anything; API clients asking for JSON fall through. */
function wantsHtml(req: Request): boolean {
  return req.accepts(['html', 'json']) === 'html';
}
