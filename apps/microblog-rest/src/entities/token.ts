import type { IssuedToken } from '../modules/oauth/oauth.service.js';

/** Token: what POST /oauth/token returns (no expiry: the reference's tokens live until revoked). */
export interface TokenJson {
  access_token: string;
  token_type: 'Bearer';
  scope: string;
  /** Unix seconds. */
  created_at: number;
}

export function serializeToken(token: IssuedToken): TokenJson {
  return {
    access_token: token.accessToken,
    token_type: 'Bearer',
    scope: token.scopes.join(' '),
    created_at: Math.floor(token.createdAt.getTime() / 1000),
  };
}
