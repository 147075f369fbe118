import type { ApolloServerPlugin } from '@apollo/server';
import type { Logger, PubSub, Unsubscribe } from '@agora/core';
import type { GraphQLContext } from '../../graphql/context.js';
import { UNCACHEABLE, wholeAnswerCache } from '../../graphql/response-cache.js';

/**
 * The pub/sub channel on which PostgreSQL itself announces, at commit, every write to what an event
 * page shows (statement triggers of migration 20261127130000). The trigger function names the
 * channel by `notifyChannelName` of this string: keep them together.
 */
export const EVENT_ANSWERS_CHANNEL = 'events.answers-changed';

/** How long an anonymous event answer may be served at most, whatever was announced (see below). */
export const EVENT_ANSWER_MAX_AGE_MS = 60_000;

/**
 * The identity of "everything an anonymous event page shows" in this process: a counter bumped by
 * each commit that touches events, their tags, addresses, contacts, participant counts, or the
 * profiles and pictures they show, whichever process or tool wrote it (the triggers notify at commit,
 * through the one LISTEN connection). The notification reaches every process within moments of the
 * commit, but not necessarily before the writer's own next request: so a mutation answered by this
 * process also bumps the counter before its answer leaves (a client reads its own writes), and
 * another process catches up when the notification arrives (ADR 0028).
 *
 * Two things no trigger announces bound an answer's age instead: the clock (related events are the
 * upcoming ones) and a notification lost while the LISTEN connection was down. The token therefore
 * also changes every EVENT_ANSWER_MAX_AGE_MS.
 */
export class EventAnswerGeneration {
  private value = 0;
  private unsubscribe: Unsubscribe | undefined;

  constructor(private readonly options: { pubsub: PubSub; logger: Logger; now?: () => number }) {}

  async start(): Promise<void> {
    this.unsubscribe ??= await this.options.pubsub.subscribe(EVENT_ANSWERS_CHANNEL, () => this.bump());
  }

  async stop(): Promise<void> {
    const unsubscribe = this.unsubscribe;
    this.unsubscribe = undefined;
    await unsubscribe?.().catch((error: unknown) =>
      this.options.logger.warn({ err: error }, 'could not stop listening for event changes'),
    );
  }

  /** A write in this process that must not wait for the notification (also what the trigger does). */
  bump(): void {
    this.value += 1;
  }

  /** Equal for two reads exactly when nothing announced changed between them within one age window. */
  token(): string {
    const window = Math.floor((this.options.now ?? Date.now)() / EVENT_ANSWER_MAX_AGE_MS);
    return `${this.value}:${window}`;
  }
}

/** Configurations seen, numbered: an instance setting (long events) changes what an event shows. */
const configIds = new WeakMap<object, number>();
let configCount = 0;
function configId(config: object): number {
  let id = configIds.get(config);
  if (id === undefined) configIds.set(config, (id = ++configCount));
  return id;
}

/** Every mutation answered here bumps the counter as its answer leaves, after its writes committed. */
const mutationsBump: ApolloServerPlugin<GraphQLContext> = {
  async requestDidStart() {
    return {
      async willSendResponse({ operation, contextValue }) {
        if (operation?.operation === 'mutation') contextValue.app.eventAnswers.bump();
      },
    };
  },
};

/**
 * Whole answers of `event(uuid)` for anonymous callers (the reference web client's event page, read
 * by every visitor): a signed-in caller may see drafts, private events or their own participation,
 * so theirs are always computed. Up to 1,000 events' answers per document are kept.
 */
export const eventAnswerCache = (): ApolloServerPlugin<GraphQLContext>[] => [
  mutationsBump,
  wholeAnswerCache(
    {
      event: (context) =>
        context.userId === undefined
          ? `${context.app.eventAnswers.token()}:${configId(context.app.instanceConfig.config())}`
          : UNCACHEABLE,
    },
    { maxVariants: 1_000 },
  ),
];
