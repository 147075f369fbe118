import { ACTIVITYSTREAMS_CONTEXT_URL } from './activitystreams.context.js';
import type { JsonLdContext } from './context.types.js';
import { eventsContextMap } from './events.context.js';
import { mastodonContextMap } from './mastodon.context.js';
import { SECURITY_V1_CONTEXT_URL } from './security-v1.context.js';

export * from './context.types.js';
export { ACTIVITYSTREAMS_CONTEXT_URL, activityStreamsContext } from './activitystreams.context.js';
export { SECURITY_V1_CONTEXT_URL, securityV1Context } from './security-v1.context.js';
export { eventsContextMap } from './events.context.js';
export { mastodonContextMap } from './mastodon.context.js';

/** `@context` of the events service's documents (the reference's order: AS, security, inline map). */
export const EVENTS_LD_CONTEXT: JsonLdContext = [
  ACTIVITYSTREAMS_CONTEXT_URL,
  SECURITY_V1_CONTEXT_URL,
  eventsContextMap,
];

/** `@context` of the microblog service's documents, as Mastodon sends them. */
export const MICROBLOG_LD_CONTEXT: JsonLdContext = [
  ACTIVITYSTREAMS_CONTEXT_URL,
  SECURITY_V1_CONTEXT_URL,
  mastodonContextMap,
];
