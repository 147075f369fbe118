import { preparedStatement } from '@agora/db';
import type { Sequelize } from 'sequelize';
import { parse, print, type DocumentNode } from 'graphql';
import { UNCACHEABLE, wholeAnswerCache } from '../../graphql/response-cache.js';
import { TurnBatch } from '../../graphql/turn-batch.js';
import { FULL_EVENT_DOCUMENTS } from '../../graphql/web-client-documents.js';

/** How long an anonymous event answer may be served at most (related events are the upcoming ones). */
export const EVENT_ANSWER_MAX_AGE_MS = 60_000;

const GENERATION = preparedStatement<{ value: string }, []>({
  name: 'agora_event_answer_generation',
  text: 'SELECT value::text AS value FROM event_answer_generation',
});

/**
 * The identity of "everything an anonymous event page shows": a counter in the database that every
 * committing transaction which wrote to those tables bumps once, at its commit (deferred triggers of
 * migration 20261127130000), whoever wrote: a resolver, a job, federation, the admin tool, plain SQL.
 * Read for cached requests (one read shared by those that arrive together), in every process alike,
 * so an answer is never served after the commit of a write it shows (ADR 0028).
 *
 * The clock also changes the page (related events are the upcoming ones), so the token changes every
 * EVENT_ANSWER_MAX_AGE_MS too.
 */
export class EventAnswerGeneration {
  private readonly reads = new TurnBatch<void, string>(async (keys) => {
    const [row] = await GENERATION.rows(this.options.sequelize, []);
    const window = Math.floor((this.options.now ?? Date.now)() / EVENT_ANSWER_MAX_AGE_MS);
    return keys.map(() => `${row?.value ?? 0}:${window}`);
  });

  constructor(private readonly options: { sequelize: Sequelize; now?: () => number }) {}

  /** The current token: one read shared by the requests that arrived in the same turn (TurnBatch). */
  token(): Promise<string> {
    return this.reads.load();
  }
}

/** Configurations seen, numbered: an instance setting (long events) changes what an event shows. */
const configIds = new WeakMap<object, number>();
let configCount = 0;
export function configId(config: object): number {
  let id = configIds.get(config);
  if (id === undefined) configIds.set(config, (id = ++configCount));
  return id;
}

/**
 * The documents whose every field reads only tables the triggers watch: the reference web client's
 * event page (`FetchEvent`). Another document may reach comments, members, feeds…: it executes.
 */
const CACHED_DOCUMENTS = new Set([print(parse(FULL_EVENT_DOCUMENTS['FetchEvent']!))]);
const cachedDocument = (document: DocumentNode) => CACHED_DOCUMENTS.has(print(document));

/**
 * Whole answers of the event page for anonymous callers, read by every visitor: a signed-in caller
 * may see drafts, private events or their own participation, so theirs are always computed. Up to
 * 1,000 events' answers are kept.
 */
export const eventAnswerCache = () =>
  wholeAnswerCache(
    {
      event: async (context) =>
        context.userId === undefined
          ? `${await context.app.eventAnswers.token()}:${configId(context.app.instanceConfig.config())}`
          : UNCACHEABLE,
    },
    { maxVariants: 1_000, documents: cachedDocument },
  );
