import { buildNodeInfo, type NodeInfoDocument, type NodeInfoVersion } from '@agora/federation';
import type { InstanceView } from '../modules/instance/instance.service.js';
import { AGORA_VERSION, MASTODON_COMPATIBLE_VERSION } from '../version.js';

/** NodeInfo 2.0 / 2.1 of the microblog service. */
export function serializeNodeInfo(version: NodeInfoVersion, view: InstanceView): NodeInfoDocument {
  return buildNodeInfo(version, {
    software: {
      name: 'agora',
      version: AGORA_VERSION,
      ...(view.sourceUrl === null ? {} : { repository: view.sourceUrl, homepage: view.sourceUrl }),
    },
    // Both protocols the service speaks: ActivityPub, and OStatus (Atom feeds, PuSH, Salmon; ADR 0038, 0045).
    protocols: ['activitypub', 'ostatus'],
    services: { inbound: [], outbound: [] },
    openRegistrations: view.registrationsOpen,
    usage: {
      users: {
        total: view.stats.users,
        activeMonth: view.stats.activeUsersMonth,
        activeHalfyear: view.stats.activeUsersHalfyear,
      },
      localPosts: view.stats.localStatuses,
    },
    metadata: {
      nodeName: view.title,
      nodeDescription: view.shortDescription,
      // megalodon's detector() picks its Mastodon driver from this for software it does not know.
      upstream: { name: 'mastodon', version: MASTODON_COMPATIBLE_VERSION },
    },
  });
}
