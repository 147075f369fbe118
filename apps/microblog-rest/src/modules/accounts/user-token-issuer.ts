import type { Scope } from '@agora/auth';
import type { Transaction } from 'sequelize';
import type { OAuthService } from '../oauth/oauth.service.js';
import type { IssuedUserToken, UserTokenIssuer } from './account.service.js';

/** The part of OAuthService that mints (or reuses) a token inside a caller's transaction. */
interface TokenMinting {
  issueToken(
    applicationId: string,
    userId: string | null,
    scopes: Scope[],
    outer?: Transaction,
  ): Promise<IssuedUserToken>;
}

/**
 * Sign-up tokens through OAuthService's own issuing, so they are stored, encrypted and reused like
 * every other token. OAuthService keeps that method private for now; this is the one place reaching it.
 */
export function oauthUserTokens(oauth: OAuthService): UserTokenIssuer {
  const minting = oauth as unknown as TokenMinting;
  return {
    issue: (applicationId, userId, scopes, transaction) =>
      minting.issueToken(applicationId, userId, scopes, transaction),
  };
}
