import { TransportError } from '../../http/errors.js';

export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'invalid_scope';

const STATUS: Record<OAuthErrorCode, number> = {
  invalid_request: 400,
  invalid_client: 401,
  invalid_grant: 400,
  unauthorized_client: 403,
  unsupported_grant_type: 400,
  invalid_scope: 400,
};

/**
 * An error of the OAuth protocol itself (RFC 6749 §5.2): `{"error": code, "error_description"}` with
 * the code's status. It is a transport-level error, so the one error middleware renders it as is.
 */
export class OAuthError extends TransportError {
  constructor(
    readonly code: OAuthErrorCode,
    description: string,
  ) {
    super(
      STATUS[code],
      code,
      description,
      // RFC 6749 §5.2: a 401 for client authentication names the scheme the client may use.
      code === 'invalid_client' ? { 'WWW-Authenticate': 'Basic realm="oauth"' } : {},
    );
    this.name = 'OAuthError';
  }
}
