import type { RemoteActorInput } from './actor.store.js';

/** A remote Person's stored document, as the resolver would hand it to `upsertRemote` (tests). */
export function remoteActorInput(username: string, domain: string): RemoteActorInput {
  const uri = `https://${domain}/users/${username}`;
  return {
    type: 'Person',
    username,
    domain,
    uri,
    url: `https://${domain}/@${username}`,
    inboxUrl: `${uri}/inbox`,
    outboxUrl: `${uri}/outbox`,
    sharedInboxUrl: `https://${domain}/inbox`,
    followersUrl: `${uri}/followers`,
    followingUrl: `${uri}/following`,
    endpoints: {},
    publicKeyPem: null,
    keyId: `${uri}#main-key`,
  };
}
