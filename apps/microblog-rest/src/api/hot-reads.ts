import type { AppContext } from '../context.js';
import type { HotRead } from '../http/hot-reads.js';
import { verifyAccountCredentials } from './v1/accounts.js';
import { verifyAppCredentials } from './v1/apps.js';

/**
 * Every read the fast lane answers before Express (ADR 0002): the two `verify_credentials`, which
 * clients send on every start and refresh (benchmarked in tooling/bench). The lane is built from this
 * list and its parity test loops over it, so a read added here is parity-tested at once.
 */
export function hotReads(ctx: Pick<AppContext, 'accounts' | 'config' | 'push'>): HotRead[] {
  return [
    verifyAppCredentials(ctx.push.vapidPublicKey),
    verifyAccountCredentials(ctx.accounts, ctx.config.http.publicUrl),
  ];
}
