import type { ServiceInfrastructure } from '@agora/db';
import { Federation, type ActorStore } from '@agora/federation';
import type { EventsConfig } from '../config/config.js';
import { eventsActorDocuments } from '../modules/groups/group.federation.js';
import { appVersion } from '../version.js';

/** The reference's instance actor: the Application `relay` at `/relay`, which follows other instances. */
export function eventsFederation(
  config: EventsConfig,
  infrastructure: Pick<ServiceInfrastructure, 'sequelize' | 'queue' | 'logger'>,
  actors: ActorStore,
): Federation {
  const publicUrl = config.http.publicUrl;
  const relay = `${publicUrl}/relay`;
  return new Federation({
    ...infrastructure,
    actors,
    publicUrl,
    userAgent: `Agora-events/${appVersion()} (+${publicUrl}/)`,
    allowPrivateHosts: config.federation.allowPrivateHosts,
    instanceActor: {
      type: 'Application',
      username: 'relay',
      urls: {
        uri: relay,
        url: relay,
        inboxUrl: `${relay}/inbox`,
        outboxUrl: `${relay}/outbox`,
        sharedInboxUrl: `${publicUrl}/inbox`,
        followersUrl: `${relay}/followers`,
        followingUrl: `${relay}/following`,
        endpoints: {},
      },
    },
    documents: eventsActorDocuments(infrastructure.sequelize),
    webfinger: { subscribeTemplate: `${publicUrl}/interact?uri={uri}` },
  });
}
