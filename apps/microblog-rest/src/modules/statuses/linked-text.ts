import type { ActorStore } from '@agora/federation';
import { tagUrl } from '../../entities/status.js';
import {
  extractEntities,
  renderStatusHtml,
  type LinkedMention,
  type MentionCandidate,
} from './status-text.js';

export interface LinkedText {
  html: string;
  /** The accounts the mentions resolve to, once each. */
  mentionIds: string[];
  tags: string[];
}

const mentionKey = (candidate: MentionCandidate) =>
  `${candidate.username.toLowerCase()}@${candidate.domain ?? ''}`;

/**
 * A text (a status's, an announcement's) as HTML, its mentions linked to the accounts they resolve to
 * (local ones, or remote ones already known here) and its hashtags to this server's tag pages.
 */
export async function renderLinkedText(
  text: string,
  deps: { actors: ActorStore; publicUrl: string },
): Promise<LinkedText> {
  const localHost = new URL(deps.publicUrl).host.toLowerCase();
  const entities = extractEntities(text);
  const resolved = new Map<string, LinkedMention & { id: string }>();
  await Promise.all(
    entities.mentions.map(async (candidate) => {
      const local = candidate.domain === null || candidate.domain === localHost;
      const actor = await deps.actors.findByUsername(candidate.username, local ? null : candidate.domain);
      if (!actor) return;
      resolved.set(mentionKey(candidate), {
        id: actor.id,
        username: actor.username,
        domain: actor.domain,
        url: actor.url ?? actor.uri,
      });
    }),
  );
  const html = renderStatusHtml(text, {
    mention: (candidate) => resolved.get(mentionKey(candidate)),
    tagUrl: (name) => tagUrl(deps.publicUrl, name),
  });
  return {
    html,
    mentionIds: [...new Set([...resolved.values()].map((mention) => mention.id))],
    tags: entities.tags,
  };
}
