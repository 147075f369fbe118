import type { RemoteActorInput } from './actor.store.js';
import type { ActorUrlScheme } from './actor.types.js';

/** The URLs of local actors on the tests' instance, `https://local.test` (tests). */
export const localTestUrls: ActorUrlScheme = ({ username }) => ({
  uri: `https://local.test/@${username}`,
  url: `https://local.test/@${username}`,
  inboxUrl: `https://local.test/@${username}/inbox`,
  outboxUrl: `https://local.test/@${username}/outbox`,
  sharedInboxUrl: 'https://local.test/inbox',
  followersUrl: `https://local.test/@${username}/followers`,
  followingUrl: `https://local.test/@${username}/following`,
  endpoints: {},
});

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
