export {
  JwtSessions,
  SESSION_MESSAGES,
  MIN_SECRET_BYTES,
  ACCESS_TTL_SECONDS,
  REFRESH_TTL_SECONDS,
  type AcceptedAccess,
  type AccessCheck,
  type AccessTokenFailure,
  type TokenPair,
  type JwtSessionsOptions,
} from './jwt-sessions.js';
