import type { ActorUrlScheme } from '@agora/federation';

/** Mastodon's layout: the ActivityPub id under `/users/name`, the profile page at `/@name`. */
export function microblogActorUrls(publicUrl: string): ActorUrlScheme {
  return ({ username }) => {
    const name = encodeURIComponent(username);
    const uri = `${publicUrl}/users/${name}`;
    return {
      uri,
      url: `${publicUrl}/@${name}`,
      inboxUrl: `${uri}/inbox`,
      outboxUrl: `${uri}/outbox`,
      sharedInboxUrl: `${publicUrl}/inbox`,
      followersUrl: `${uri}/followers`,
      followingUrl: `${uri}/following`,
      endpoints: { featured: `${uri}/collections/featured`, featuredTags: `${uri}/collections/tags` },
    };
  };
}
