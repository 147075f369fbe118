import type { OAuthApplication } from '../modules/oauth/oauth.service.js';

/** Application (scopes and redirect_uris 4.3; redirect_uri and vapid_key deprecated but still read). */
export interface ApplicationJson {
  id: string;
  name: string;
  website: string | null;
  scopes: string[];
  redirect_uris: string[];
  /** The registered URIs joined by newlines; megalodon's registerApp reads this one. */
  redirect_uri: string;
  vapid_key: string;
}

/** CredentialApplication: what POST /api/v1/apps returns, the only time the secret is shown. */
export interface CredentialApplicationJson extends ApplicationJson {
  client_id: string;
  client_secret: string;
  /** 0 = never expires (4.4). */
  client_secret_expires_at: number;
}

/** `vapidKey`: Web Push's VAPID public key (deprecated here since 4.3, still read by clients). */
export function serializeApplication(application: OAuthApplication, vapidKey: string): ApplicationJson {
  return {
    id: application.id,
    name: application.name,
    website: application.website,
    scopes: [...application.scopes],
    redirect_uris: [...application.redirectUris],
    redirect_uri: application.redirectUris.join('\n'),
    vapid_key: vapidKey,
  };
}

export function serializeCredentialApplication(
  application: OAuthApplication,
  clientSecret: string,
  vapidKey: string,
): CredentialApplicationJson {
  return {
    ...serializeApplication(application, vapidKey),
    client_id: application.clientId,
    client_secret: clientSecret,
    client_secret_expires_at: 0,
  };
}
