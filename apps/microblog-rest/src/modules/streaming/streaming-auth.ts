import type { IncomingMessage } from 'node:http';
import { Forbidden, NotFound, Unauthenticated } from '@agora/core';
import type { AccountService } from '../accounts/account.service.js';
import { BEARER_TOKEN_HEADER } from '../oauth/bearer.js';
import type { OAuthService } from '../oauth/oauth.service.js';
import { STREAM_MESSAGES, StreamRefusal } from './streams.js';
import type { StreamViewer } from './streaming.service.js';

/**
 * The token of a streaming request, as clients send it (not-shown.md §2.6): `Authorization: Bearer`,
 * the `access_token` query parameter (megalodon), or, on a WebSocket, the first
 * `Sec-WebSocket-Protocol` (masto.js; the server echoes it back).
 */
export function streamingToken(
  request: IncomingMessage,
  query: URLSearchParams,
  socket: boolean,
): string | undefined {
  const header = request.headers.authorization;
  if (header !== undefined) return BEARER_TOKEN_HEADER.exec(header)?.[1] ?? '';
  const fromQuery = query.get('access_token');
  if (fromQuery !== null && fromQuery !== '') return fromQuery;
  if (!socket) return undefined;
  const protocol = request.headers['sec-websocket-protocol']?.split(',')[0]?.trim();
  return protocol === undefined || protocol === '' ? undefined : protocol;
}

/**
 * The viewer of a token: every stream needs a user token (Mastodon ≥ 4.2). Errors: StreamRefusal
 * 401 (missing, invalid or app token), 403 (an account that may not sign in).
 */
export async function streamingViewer(
  deps: { oauth: OAuthService; accounts: AccountService },
  token: string | undefined,
): Promise<StreamViewer> {
  if (token === undefined) throw new StreamRefusal(STREAM_MESSAGES.missingToken, 401);
  const auth = await deps.oauth.authenticateBearer(token);
  if (!auth || auth.userId === null) throw new StreamRefusal(STREAM_MESSAGES.invalidToken, 401);
  try {
    const account = await deps.accounts.activeAccount(auth.userId);
    return { accountId: account.id, tokenId: auth.tokenId, scopes: auth.scopes };
  } catch (error) {
    if (error instanceof Forbidden) throw new StreamRefusal(error.message, 403);
    if (error instanceof NotFound || error instanceof Unauthenticated) {
      throw new StreamRefusal(STREAM_MESSAGES.invalidToken, 401);
    }
    throw error;
  }
}
