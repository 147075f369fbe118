import { type Sequelize, type Transaction } from 'sequelize';
import { parseScopes, scopesWithin, type Scope } from '@agora/auth';
import { BadInput, type FieldErrors, type Logger } from '@agora/core';
import { preparedStatement } from '@agora/db';
import { defineOAuthAccessTokenModel, type OAuthAccessTokenModel } from './oauth-access-token.model.js';
import {
  defineOAuthApplicationModel,
  type OAuthApplicationModel,
  type OAuthApplicationRow,
} from './oauth-application.model.js';
import {
  defineOAuthAuthorizationCodeModel,
  type OAuthAuthorizationCodeModel,
} from './oauth-authorization-code.model.js';
import { OAuthError } from './oauth-error.js';
import { matchesHash, pkceS256, randomToken, sha256Hex, type TokenCipher } from './token-crypto.js';

/** The redirect URI that shows the code on a page instead of redirecting (out-of-band). */
export const OOB_REDIRECT_URI = 'urn:ietf:wg:oauth:2.0:oob';
/** What a token request gets when it names no scope (Doorkeeper's default in the reference). */
export const DEFAULT_SCOPES: Scope[] = ['read'];
export const AUTHORIZATION_CODE_TTL_MS = 10 * 60 * 1000;
// Writing last_used_at on every request would turn each authenticated read into a write.
const LAST_USED_GRANULARITY_MS = 60 * 1000;
/**
 * How long a live token's lookup is reused. Revoking through this process takes effect at once (the
 * entry is dropped); a revocation made by another process, or a token row deleted with its user or
 * app, takes effect here within this bound.
 */
export const BEARER_CACHE_TTL_MS = 500;
const BEARER_CACHE_MAX_ENTRIES = 10_000;

export interface OAuthApplication {
  id: string;
  name: string;
  website: string | null;
  redirectUris: string[];
  scopes: Scope[];
  clientId: string;
  superapp: boolean;
  createdAt: Date;
}

export interface IssuedToken {
  accessToken: string;
  scopes: Scope[];
  createdAt: Date;
}

/** Who is calling, resolved from a bearer token. */
export interface BearerAuth {
  tokenId: string;
  application: OAuthApplication;
  /** Absent for an app token (client_credentials). */
  userId: string | null;
  scopes: Scope[];
}

/** The password grant's view of the users store (packages/auth). */
export interface PasswordVerifier {
  verify(
    email: string,
    password: string,
  ): Promise<{ ok: true; userId: string } | { ok: false; reason: 'invalid' | 'unconfirmed' }>;
}

export interface ClientCredentials {
  clientId: string | undefined;
  clientSecret: string | undefined;
}

/** A token request's parameters (RFC 6749 §4), already taken from the body as strings. */
export interface TokenRequest extends ClientCredentials {
  grantType: string | undefined;
  scope: string | undefined;
  code: string | undefined;
  redirectUri: string | undefined;
  codeVerifier: string | undefined;
  username: string | undefined;
  password: string | undefined;
}

export interface AuthorizationCodeInput {
  application: OAuthApplication;
  userId: string;
  redirectUri: string;
  scopes: readonly Scope[];
  codeChallenge?: string | null;
  codeChallengeMethod?: string | null;
}

export interface OAuthServiceDeps {
  sequelize: Sequelize;
  cipher: TokenCipher;
  logger: Logger;
  passwordGrant: boolean;
  /** Needed by the password grant; without it that grant is unsupported. */
  passwords?: PasswordVerifier;
  /** Milliseconds on a monotonic clock, for the bearer cache's lifetime; tests move it instead of sleeping. */
  monotonicNow?: () => number;
}

const MAX_NAME_LENGTH = 60;
const MAX_URI_LENGTH = 2000;
// RFC 7636 §4.1: 43–128 characters of [A-Za-z0-9-._~]; an S256 challenge is 43 base64url characters.
const PKCE_VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;
const PKCE_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
// Tokens this server issues are 43 base64url characters; anything else is not worth a query.
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{20,200}$/;

/** OAuth2 as the microblog reference serves it: apps, the token grants, codes, revocation, bearer lookup. */
export class OAuthService {
  private readonly applications: OAuthApplicationModel;
  private readonly tokens: OAuthAccessTokenModel;
  private readonly codes: OAuthAuthorizationCodeModel;
  /** Live-token lookups by token hash, for BEARER_CACHE_TTL_MS; concurrent requests share one query. */
  private readonly bearers: BearerCache;

  constructor(private readonly deps: OAuthServiceDeps) {
    this.bearers = new BearerCache(
      BEARER_CACHE_TTL_MS,
      BEARER_CACHE_MAX_ENTRIES,
      deps.monotonicNow ?? (() => performance.now()),
    );
    this.applications = defineOAuthApplicationModel(deps.sequelize);
    this.tokens = defineOAuthAccessTokenModel(deps.sequelize);
    this.codes = defineOAuthAuthorizationCodeModel(deps.sequelize);
  }

  get passwordGrantEnabled(): boolean {
    return this.deps.passwordGrant && this.deps.passwords !== undefined;
  }

  /** POST /api/v1/apps: validates, stores the secret's hash, and returns the secret this once. */
  async registerApplication(input: {
    clientName: unknown;
    redirectUris: unknown;
    scopes: unknown;
    website: unknown;
  }): Promise<{ application: OAuthApplication; clientSecret: string }> {
    const fields: FieldErrors = {};
    const add = (field: string, message: string) => (fields[field] ??= []).push(message);

    const name = typeof input.clientName === 'string' ? input.clientName.trim() : '';
    if (name === '') add('client_name', "Application name can't be blank");
    else if ([...name].length > MAX_NAME_LENGTH) {
      add('client_name', `Application name is too long (maximum is ${MAX_NAME_LENGTH} characters)`);
    }

    const redirectUris = stringList(input.redirectUris);
    if (redirectUris === undefined || redirectUris.length === 0)
      add('redirect_uris', "Redirect URI can't be blank");
    else {
      for (const uri of redirectUris) {
        const problem = redirectUriProblem(uri);
        if (problem) add('redirect_uris', `Redirect URI ${problem}`);
      }
    }

    // Absent or blank scopes mean the default, as when a form leaves the field empty.
    const given = input.scopes === undefined || input.scopes === null ? [] : stringList(input.scopes);
    const scopeList = given?.length === 0 ? DEFAULT_SCOPES : given;
    const { scopes, unknown } = parseScopes((scopeList ?? []).join(' '));
    if (scopeList === undefined || unknown.length > 0 || scopes.length === 0) {
      add('scopes', "Scopes doesn't match configured on the server.");
    }

    let website: string | null = null;
    if (input.website !== undefined && input.website !== null && input.website !== '') {
      if (
        typeof input.website !== 'string' ||
        !isHttpUrl(input.website) ||
        input.website.length > MAX_URI_LENGTH
      ) {
        add('website', 'Application website is invalid');
      } else website = input.website;
    }

    if (Object.keys(fields).length > 0) {
      const summary = Object.values(fields).flat().join(', ');
      throw new BadInput(`Validation failed: ${summary}`, { fields });
    }

    const clientSecret = randomToken();
    const row = await this.applications.create({
      name,
      website,
      redirectUris: [...new Set(redirectUris)],
      scopes: scopes.join(' '),
      clientId: randomToken(),
      clientSecretHash: sha256Hex(clientSecret),
    });
    return { application: toApplication(row), clientSecret };
  }

  async applicationByClientId(clientId: string): Promise<OAuthApplication | null> {
    const row = await this.applications.findOne({ where: { clientId } });
    return row ? toApplication(row) : null;
  }

  /** The client named by the credentials, or invalid_client (401) whatever is wrong with them. */
  async authenticateClient(credentials: ClientCredentials): Promise<OAuthApplication> {
    const { clientId, clientSecret } = credentials;
    if (!clientId || !clientSecret) {
      throw new OAuthError(
        'invalid_client',
        'Client authentication failed due to unknown client, no client authentication included, or unsupported authentication method.',
      );
    }
    const row = await this.applications.findOne({ where: { clientId } });
    if (!row || !matchesHash(clientSecret, row.clientSecretHash)) {
      throw new OAuthError(
        'invalid_client',
        'Client authentication failed due to unknown client, no client authentication included, or unsupported authentication method.',
      );
    }
    return toApplication(row);
  }

  /** POST /oauth/token. */
  async token(request: TokenRequest): Promise<IssuedToken> {
    switch (request.grantType) {
      case 'client_credentials':
        return this.clientCredentialsGrant(request);
      case 'authorization_code':
        return this.authorizationCodeGrant(request);
      case 'password':
        if (this.passwordGrantEnabled) return this.passwordGrant(request);
        break;
      case undefined:
      case '':
        throw new OAuthError('invalid_request', 'Missing required parameter: grant_type.');
    }
    throw new OAuthError(
      'unsupported_grant_type',
      'The authorization grant type is not supported by the authorization server.',
    );
  }

  /**
   * Creates a single-use code for an approved authorization request (the /oauth/authorize page calls
   * this after the person approved). Returns the code, which is stored only as a hash.
   */
  async issueAuthorizationCode(input: AuthorizationCodeInput): Promise<string> {
    const { application } = input;
    if (!application.redirectUris.includes(input.redirectUri)) {
      throw new OAuthError(
        'invalid_request',
        "The requested redirect uri is malformed or doesn't match client redirect URI.",
      );
    }
    if (input.scopes.length === 0 || !scopesWithin(input.scopes, application.scopes)) {
      throw new OAuthError('invalid_scope', 'The requested scope is invalid, unknown, or malformed.');
    }
    const challenge = input.codeChallenge || null;
    const method = challenge === null ? null : input.codeChallengeMethod || 'plain';
    if (challenge !== null && (method !== 'S256' || !PKCE_CHALLENGE.test(challenge))) {
      throw new OAuthError('invalid_request', 'Only the S256 code challenge method is supported.');
    }
    const code = randomToken();
    await this.codes.create({
      codeHash: sha256Hex(code),
      applicationId: application.id,
      userId: input.userId,
      redirectUri: input.redirectUri,
      scopes: input.scopes.join(' '),
      codeChallenge: challenge,
      codeChallengeMethod: method,
      expiresAt: new Date(Date.now() + AUTHORIZATION_CODE_TTL_MS),
    });
    return code;
  }

  /**
   * POST /oauth/revoke (RFC 7009): a token the client does not know is already "revoked", so it
   * answers like a success; a token of another client is refused.
   */
  async revoke(credentials: ClientCredentials, token: string | undefined): Promise<void> {
    const application = await this.authenticateClient(credentials);
    if (!token) throw new OAuthError('invalid_request', 'Missing required parameter: token.');
    if (!TOKEN_SHAPE.test(token)) return;
    const tokenHash = sha256Hex(token);
    const row = await this.tokens.findOne({ where: { tokenHash } });
    if (!row) return;
    if (row.applicationId !== application.id) {
      throw new OAuthError('unauthorized_client', 'You are not authorized to revoke this token.');
    }
    if (row.revokedAt === null) await row.update({ revokedAt: new Date() });
    // After the update: any lookup started before it is dropped, any started after it reads the revocation.
    this.bearers.delete(token);
  }

  /**
   * The caller behind a bearer token, or null when it is unknown or revoked: one indexed lookup,
   * reused for BEARER_CACHE_TTL_MS while the token is live (unknown tokens are never remembered).
   */
  authenticateBearer(token: string): Promise<BearerAuth | null> {
    if (!TOKEN_SHAPE.test(token)) return Promise.resolve(null);
    // Keyed by the token itself, which this process holds anyway while it serves the request: a hit
    // costs no SHA-256; only the database sees (and stores) the hash.
    return this.bearers.get(token) ?? this.bearers.set(token, this.lookupBearer(sha256Hex(token)));
  }

  private async lookupBearer(tokenHash: string): Promise<BearerAuth | null> {
    const row = await this.bearerRow(tokenHash);
    if (!row) return null;
    if (row.last_used_at === null || Date.now() - row.last_used_at.getTime() > LAST_USED_GRANULARITY_MS) {
      await this.deps.sequelize.query(
        `UPDATE oauth_access_tokens SET last_used_at = now()
          WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`,
        { bind: [row.token_id] },
      );
    }
    // Shared by every request within the cache lifetime: frozen, so no route can change another's view.
    return deepFreeze({
      tokenId: String(row.token_id),
      userId: row.user_id === null ? null : String(row.user_id),
      scopes: parseScopes(row.token_scopes).scopes,
      application: {
        id: String(row.id),
        name: row.name,
        website: row.website,
        redirectUris: row.redirect_uris,
        scopes: parseScopes(row.scopes).scopes,
        clientId: row.client_id,
        superapp: row.superapp,
        createdAt: row.created_at,
      },
    });
  }

  /**
   * The bearer lookup as a named prepared statement on a pooled connection: PostgreSQL plans the join
   * once per connection instead of on every authenticated request (Sequelize sends unnamed statements).
   */
  private async bearerRow(tokenHash: string): Promise<BearerRow | undefined> {
    const [row] = await BEARER_STATEMENT.rows(this.deps.sequelize, [tokenHash]);
    return row;
  }

  private async clientCredentialsGrant(request: TokenRequest): Promise<IssuedToken> {
    const application = await this.authenticateClient(request);
    const scopes = requestedScopes(request.scope, application);
    return this.issueToken(application.id, null, scopes);
  }

  private async passwordGrant(request: TokenRequest): Promise<IssuedToken> {
    const application = await this.authenticateClient(request);
    if (!request.username) throw new OAuthError('invalid_request', 'Missing required parameter: username.');
    if (!request.password) throw new OAuthError('invalid_request', 'Missing required parameter: password.');
    const scopes = requestedScopes(request.scope, application);
    const result = await this.deps.passwords!.verify(request.username, request.password);
    if (!result.ok) {
      throw new OAuthError(
        'invalid_grant',
        result.reason === 'unconfirmed'
          ? 'You have to confirm your email address before continuing.'
          : 'Invalid email or password.',
      );
    }
    return this.issueToken(application.id, result.userId, scopes);
  }

  private async authorizationCodeGrant(request: TokenRequest): Promise<IssuedToken> {
    const application = await this.authenticateClient(request);
    if (!request.code) throw new OAuthError('invalid_request', 'Missing required parameter: code.');
    if (!request.redirectUri)
      throw new OAuthError('invalid_request', 'Missing required parameter: redirect_uri.');
    const invalidGrant = () =>
      new OAuthError(
        'invalid_grant',
        'The provided authorization grant is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client.',
      );
    const { code, redirectUri, codeVerifier } = request;
    if (!TOKEN_SHAPE.test(code)) throw invalidGrant();

    // The code is locked, checked, spent and exchanged in one transaction: it works exactly once.
    return this.deps.sequelize.transaction(async (transaction) => {
      const grant = await this.codes.findOne({
        where: { codeHash: sha256Hex(code) },
        lock: transaction.LOCK.UPDATE,
        transaction,
      });
      if (
        !grant ||
        grant.applicationId !== application.id ||
        grant.usedAt !== null ||
        grant.expiresAt.getTime() <= Date.now() ||
        grant.redirectUri !== redirectUri
      ) {
        throw invalidGrant();
      }
      // A verifier for a code issued without a challenge is refused too (PKCE downgrade, RFC 9700 §4.8.2).
      if (grant.codeChallenge !== null || codeVerifier) {
        if (
          grant.codeChallenge === null ||
          !codeVerifier ||
          !PKCE_VERIFIER.test(codeVerifier) ||
          pkceS256(codeVerifier) !== grant.codeChallenge
        ) {
          throw invalidGrant();
        }
      }
      await grant.update({ usedAt: new Date() }, { transaction });
      return this.issueToken(application.id, grant.userId, parseScopes(grant.scopes).scopes, transaction);
    });
  }

  /**
   * A live token of the same app, user and scopes is handed out again instead of a new one (the
   * reference's reuse_access_token), so each sign-in of a client does not pile up tokens.
   */
  private async issueToken(
    applicationId: string,
    userId: string | null,
    scopes: Scope[],
    outer?: Transaction,
  ): Promise<IssuedToken> {
    const run = async (transaction: Transaction): Promise<IssuedToken> => {
      // Two concurrent requests for one app and user would otherwise both mint a token.
      await this.deps.sequelize.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', {
        bind: [`oauth-token:${applicationId}:${userId ?? ''}`],
        transaction,
      });
      const live = await this.tokens.findAll({
        where: { applicationId, userId, revokedAt: null },
        order: [['createdAt', 'DESC']],
        transaction,
      });
      for (const row of live) {
        if (!sameScopes(parseScopes(row.scopes).scopes, scopes)) continue;
        const accessToken = this.deps.cipher.decrypt(row.tokenEncrypted);
        if (accessToken !== undefined) return { accessToken, scopes, createdAt: row.createdAt };
      }
      const accessToken = randomToken();
      const row = await this.tokens.create(
        {
          applicationId,
          userId,
          scopes: scopes.join(' '),
          tokenHash: sha256Hex(accessToken),
          tokenEncrypted: this.deps.cipher.encrypt(accessToken),
        },
        { transaction },
      );
      return { accessToken, scopes, createdAt: row.createdAt };
    };
    return outer ? run(outer) : this.deps.sequelize.transaction(run);
  }
}

const BEARER_STATEMENT = preparedStatement<BearerRow, [tokenHash: string]>({
  name: 'agora_oauth_bearer',
  text: `SELECT t.id AS token_id, t.user_id, t.scopes AS token_scopes, t.last_used_at,
                a.id, a.name, a.website, a.redirect_uris, a.scopes, a.client_id, a.superapp, a.created_at
           FROM oauth_access_tokens t JOIN oauth_applications a ON a.id = t.application_id
          WHERE t.token_hash = $1 AND t.revoked_at IS NULL`,
});

interface BearerRow {
  token_id: string;
  user_id: string | null;
  token_scopes: string;
  last_used_at: Date | null;
  id: string;
  name: string;
  website: string | null;
  redirect_uris: string[];
  scopes: string;
  client_id: string;
  superapp: boolean;
  created_at: Date;
}

/**
 * Pending or settled lookups of live tokens, each kept `ttlMs` from its start. A lookup that fails or
 * finds no live token is forgotten as soon as it settles, so only a positive answer is ever reused.
 */
class BearerCache {
  private readonly entries = new Map<string, { lookup: Promise<BearerAuth | null>; until: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries: number,
    private readonly now: () => number,
  ) {}

  get(key: string): Promise<BearerAuth | null> | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.until > this.now()) return entry.lookup;
    this.entries.delete(key);
    return undefined;
  }

  set(key: string, lookup: Promise<BearerAuth | null>): Promise<BearerAuth | null> {
    if (this.entries.size >= this.maxEntries) this.evict();
    const entry = { lookup, until: this.now() + this.ttlMs };
    this.entries.set(key, entry);
    const forget = () => {
      if (this.entries.get(key) === entry) this.entries.delete(key);
    };
    lookup.then((auth) => auth ?? forget(), forget);
    return lookup;
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  /** Drops expired entries, and the oldest half if that was not enough (a flood of distinct tokens). */
  private evict(): void {
    const now = this.now();
    for (const [key, entry] of this.entries) if (entry.until <= now) this.entries.delete(key);
    let excess = this.entries.size - Math.floor(this.maxEntries / 2);
    for (const key of this.entries.keys()) {
      if (excess-- <= 0) break;
      this.entries.delete(key);
    }
  }
}

function deepFreeze<T extends object>(value: T): Readonly<T> {
  for (const child of Object.values(value)) {
    if (typeof child === 'object' && child !== null && !Object.isFrozen(child)) deepFreeze(child as object);
  }
  return Object.freeze(value);
}

function toApplication(row: OAuthApplicationRow): OAuthApplication {
  return {
    id: String(row.id),
    name: row.name,
    website: row.website,
    redirectUris: row.redirectUris,
    scopes: parseScopes(row.scopes).scopes,
    clientId: row.clientId,
    superapp: row.superapp,
    createdAt: row.createdAt,
  };
}

/** The scopes a token request asks for (the default when none), each within the app's registration. */
function requestedScopes(scope: string | undefined, application: OAuthApplication): Scope[] {
  const { scopes, unknown } =
    scope === undefined || scope.trim() === '' ? { scopes: DEFAULT_SCOPES, unknown: [] } : parseScopes(scope);
  if (unknown.length > 0 || scopes.length === 0 || !scopesWithin(scopes, application.scopes)) {
    throw new OAuthError('invalid_scope', 'The requested scope is invalid, unknown, or malformed.');
  }
  return scopes;
}

function sameScopes(a: readonly Scope[], b: readonly Scope[]): boolean {
  return a.length === b.length && a.every((scope) => b.includes(scope));
}

/** A string split on whitespace (how forms send several URIs or scopes), or an array of strings. */
function stringList(value: unknown): string[] | undefined {
  if (typeof value === 'string') return value.split(/\s+/).filter(Boolean);
  if (Array.isArray(value) && value.every((item) => typeof item === 'string')) {
    return value.flatMap((item: string) => item.split(/\s+/)).filter(Boolean);
  }
  return undefined;
}

/** Why a redirect URI is refused (Doorkeeper's messages), or undefined when it is fine. */
function redirectUriProblem(uri: string): string | undefined {
  if (uri === OOB_REDIRECT_URI) return undefined;
  if (uri.length > MAX_URI_LENGTH) return 'is too long';
  if (!URL.canParse(uri))
    return /^[a-z][a-z0-9+.-]*:/i.test(uri) ? 'must be a valid URI.' : 'must be an absolute URI.';
  if (uri.includes('#')) return 'cannot contain a fragment.';
  return undefined;
}

function isHttpUrl(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const { protocol } = new URL(value);
  return protocol === 'http:' || protocol === 'https:';
}
