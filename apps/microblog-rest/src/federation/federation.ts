import type { ServiceInfrastructure } from '@agora/db';
import {
  Federation,
  PushHub,
  REL_MAGIC_PUBLIC_KEY,
  REL_SALMON,
  REL_UPDATES_FROM,
  type ActorStore,
} from '@agora/federation';
import type { MicroblogConfig } from '../config/config.js';
import { magicPublicKey } from '../modules/ostatus/magic-envelope.js';
import { AGORA_VERSION } from '../version.js';

/** Mastodon's instance actor: an Application named after the domain, at `/actor`. */
export function microblogFederation(
  config: MicroblogConfig,
  infrastructure: Pick<ServiceInfrastructure, 'sequelize' | 'queue' | 'logger'>,
  actors: ActorStore,
): Federation {
  const publicUrl = config.http.publicUrl;
  const instance = `${publicUrl}/actor`;
  return new Federation({
    ...infrastructure,
    actors,
    publicUrl,
    userAgent: `Agora-microblog/${AGORA_VERSION} (+${publicUrl}/)`,
    allowPrivateHosts: config.federation.allowPrivateHosts,
    instanceActor: {
      type: 'Application',
      username: config.http.domain.replace(/:\d+$/, ''),
      urls: {
        uri: instance,
        url: `${publicUrl}/about/more?instance_actor=true`,
        inboxUrl: `${instance}/inbox`,
        outboxUrl: `${instance}/outbox`,
        sharedInboxUrl: `${publicUrl}/inbox`,
        followersUrl: null,
        followingUrl: null,
        endpoints: {},
      },
    },
    documents: { flavour: 'microblog' },
    webfinger: {
      subscribeTemplate: `${publicUrl}/authorize_interaction?uri={uri}`,
      // The early protocol's links (spec microblog/not-shown.md §4.1): the Atom feed, Salmon and the
      // account's key as a magic-public-key (issue 16 §6).
      extraLinks: async (actor) => {
        if (!actor.local || actor.type !== 'Person') return [];
        const publicKeyPem = actor.publicKeyPem ?? (await actors.ensureKeys(actor.id)).publicKeyPem;
        return [
          {
            rel: REL_UPDATES_FROM,
            type: 'application/atom+xml',
            href: `${publicUrl}/users/${encodeURIComponent(actor.username)}.atom`,
          },
          { rel: REL_SALMON, href: `${publicUrl}/api/salmon/${actor.id}` },
          { rel: REL_MAGIC_PUBLIC_KEY, href: magicPublicKey(publicKeyPem) },
        ];
      },
    },
  });
}

/**
 * The PubSubHubbub 0.4 hub of the early API (`POST /api/push`): topics are the local accounts' Atom
 * feeds, `/users/:name.atom`.
 */
export function microblogPushHub(
  config: MicroblogConfig,
  infrastructure: Pick<ServiceInfrastructure, 'sequelize' | 'queue' | 'logger'>,
  actors: ActorStore,
  federation: Federation,
): PushHub {
  const publicUrl = config.http.publicUrl;
  const feedPrefix = `${publicUrl}/users/`;
  return new PushHub({
    ...infrastructure,
    fetch: federation.fetch,
    hubUrl: `${publicUrl}/api/push`,
    isLocalTopic: async (url) => {
      if (!url.startsWith(feedPrefix) || !url.endsWith('.atom')) return false;
      const name = decodeURIComponent(url.slice(feedPrefix.length, -'.atom'.length));
      if (name.includes('/')) return false;
      const actor = await actors.findByUsername(name, null);
      return actor !== null && !actor.suspended;
    },
    isBlockedHost: (host) => federation.domainBlocks.isSuspended(host),
  });
}
