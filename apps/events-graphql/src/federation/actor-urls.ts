import type { ActorUrlScheme } from '@agora/federation';

/** Collections a group publishes besides the usual ones (`spec/events/not-shown.md` §5). */
const GROUP_COLLECTIONS = ['members', 'resources', 'posts', 'events', 'discussions', 'todos'] as const;

/** The reference's layout: every actor lives at `/@name`, with its collections below it. */
export function eventsActorUrls(publicUrl: string): ActorUrlScheme {
  return ({ type, username }) => {
    const uri = `${publicUrl}/@${encodeURIComponent(username)}`;
    const endpoints: Record<string, string> = {};
    if (type === 'Group') for (const name of GROUP_COLLECTIONS) endpoints[name] = `${uri}/${name}`;
    return {
      uri,
      url: uri,
      inboxUrl: `${uri}/inbox`,
      outboxUrl: `${uri}/outbox`,
      sharedInboxUrl: `${publicUrl}/inbox`,
      followersUrl: `${uri}/followers`,
      followingUrl: `${uri}/following`,
      endpoints,
    };
  };
}
