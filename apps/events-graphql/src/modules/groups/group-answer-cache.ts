import { preparedStatement } from '@agora/db';
import { parseAcct } from '@agora/federation';
import type { Sequelize } from 'sequelize';
import { parse, print, type DocumentNode } from 'graphql';
import { Keyed, UNCACHEABLE, wholeAnswerCache } from '../../graphql/response-cache.js';
import { TurnBatch } from '../../graphql/turn-batch.js';
import { configId } from '../events/event-answer-cache.js';
import { DateTime } from '../users/date-time.scalar.js';
import { GROUP_DOCUMENTS } from './web-client-group-documents.js';

/** One group page's question: the group as named, and the bounds of its listed events (ISO, or null). */
interface PageQuestion {
  username: string;
  /** '' for a local group. */
  domain: string;
  after: string | null;
  before: string | null;
}

/** What the page's key is made of, read in one statement with the generation. */
export interface GroupPageWindow {
  /** Whether the name is a group's: the edges are that group's (an unknown group is not cached). */
  found: boolean;
  /** The counter the triggers of migration 20261129100000 bump at the commit of every write the page shows. */
  generation: string;
  /** The first begins_on of the group's events at or after `after` (null: none; `after` unset: null). */
  afterEdge: string | null;
  /** The last begins_on of the group's events at or before `before`. */
  beforeEdge: string | null;
  /** When the group's next scheduled post comes out (epoch ms), null when none is scheduled. */
  nextPublishAt: number | null;
}

/**
 * The generation and, for each question, the edges of the windows in which the answer cannot change
 * without a write: the events the page lists are those with `begins_on >= after` (and `<= before`),
 * the same set for every `after` up to the first such begins_on; non-members see the posts whose
 * `publish_at` has come, the same set until the next one comes.
 */
const WINDOWS = preparedStatement<
  {
    n: number;
    found: boolean;
    generation: string;
    afterEdge: string | null;
    beforeEdge: string | null;
    nextPublishAt: number | null;
  },
  [usernames: string[], domains: string[], afters: (string | null)[], befores: (string | null)[]]
>({
  name: 'agora_group_answer_windows',
  text: `SELECT q.n::int AS n, a.id IS NOT NULL AS found, g.value::text AS generation,
       (SELECT min(e.begins_on)::text FROM events e
         WHERE e.attributed_to_id = a.id AND e.begins_on >= q.after) AS "afterEdge",
       (SELECT max(e.begins_on)::text FROM events e
         WHERE e.attributed_to_id = a.id AND e.begins_on <= q.before) AS "beforeEdge",
       (SELECT floor(extract(epoch FROM min(p.publish_at)) * 1000)::float8 FROM posts p
         WHERE p.attributed_to_id = a.id AND p.publish_at > now()) AS "nextPublishAt"
  FROM group_answer_generation g
 CROSS JOIN unnest($1::text[], $2::text[], $3::timestamptz[], $4::timestamptz[])
       WITH ORDINALITY AS q(username, domain, after, before, n)
  LEFT JOIN actors a ON lower(a.username) = lower(q.username)
       AND lower(coalesce(a.domain, '')) = lower(q.domain) AND a.type = 'Group'`,
});

/**
 * The identity of "everything a group page shows" (ADR 0046): the group answer counter, bumped once
 * at the commit of every transaction that wrote what the page shows, whoever wrote, and the windows
 * of time within which the page's time-dependent parts cannot change. One statement reads them for
 * all the requests that arrived in the same turn of the event loop (TurnBatch), so no request can
 * miss a commit answered before it came.
 */
export class GroupAnswerGeneration {
  private readonly reads = new TurnBatch<PageQuestion, GroupPageWindow>(async (questions) => {
    // Requests in one turn mostly ask the same page: each distinct question is read once.
    const distinct = new Map<string, number>();
    const asked: PageQuestion[] = [];
    const slots = questions.map((question) => {
      const id = JSON.stringify([question.username, question.domain, question.after, question.before]);
      let slot = distinct.get(id);
      if (slot === undefined) distinct.set(id, (slot = asked.push(question) - 1));
      return slot;
    });
    const rows = await WINDOWS.rows(this.options.sequelize, [
      asked.map((question) => question.username),
      asked.map((question) => question.domain),
      asked.map((question) => question.after),
      asked.map((question) => question.before),
    ]);
    const byIndex = new Map(rows.map((row) => [row.n - 1, row]));
    return slots.map((slot) => {
      const row = byIndex.get(slot);
      return {
        found: row?.found ?? false,
        generation: row?.generation ?? '0',
        afterEdge: row?.afterEdge ?? null,
        beforeEdge: row?.beforeEdge ?? null,
        nextPublishAt: row?.nextPublishAt ?? null,
      };
    });
  });

  constructor(private readonly options: { sequelize: Sequelize; domain: string }) {}

  /**
   * The window of the group page `name` (read by `parseAcct`, as `group(preferredUsername:)` reads
   * it) listing events between `after` and `before`; null when `name` names nobody.
   */
  window(name: string, after: Date | null, before: Date | null): Promise<GroupPageWindow | null> {
    const address = parseAcct(name, this.options.domain);
    if (!address) return Promise.resolve(null);
    return this.reads.load({
      username: address.username,
      domain: address.domain ?? '',
      after: after?.toISOString() ?? null,
      before: before?.toISOString() ?? null,
    });
  }
}

/**
 * The documents whose every field reads only tables the triggers watch and whose only clock is
 * covered by the window: the reference web client's group page (`FetchGroupPublic`). Another
 * document may reach discussions, resources, todos, activity…: it executes.
 */
const CACHED_DOCUMENTS = new Set([print(parse(GROUP_DOCUMENTS.FetchGroupPublic))]);
const cachedDocument = (document: DocumentNode) => CACHED_DOCUMENTS.has(print(document));

/** The variables that choose the window: the key has the window's edges instead of their values. */
const WINDOW_VARIABLES = new Set(['afterDateTime', 'beforeDateTime']);

/** A DateTime variable as the schema reads it; undefined when it is not one (the request will fail). */
function dateVariable(value: unknown): Date | null | undefined {
  if (value === undefined || value === null) return null;
  try {
    return DateTime.parseValue(value) as Date;
  } catch {
    return undefined;
  }
}

/**
 * Whole answers of the group page for every caller, each kept under who asks (the user: their
 * default profile's role, their instance role and the generation decide the rest), the variables
 * but the times, and the windows those times fall in. Up to 1,000 answers are kept.
 */
export const groupAnswerCache = () =>
  wholeAnswerCache(
    {
      group: async (context, variables) => {
        const { name } = variables;
        const after = dateVariable(variables['afterDateTime']);
        const before = dateVariable(variables['beforeDateTime']);
        if (typeof name !== 'string' || after === undefined || before === undefined) return UNCACHEABLE;
        const window = await context.app.groupAnswers.window(name, after, before);
        // No such group: the answer is an error, never stored; and edges of nothing would key nothing.
        if (!window?.found) return UNCACHEABLE;
        const key = [
          context.userId ?? '',
          configId(context.app.instanceConfig.config()),
          after ? `after<=${window.afterEdge ?? 'none'}` : 'after:unset',
          before ? `before>=${window.beforeEdge ?? 'none'}` : 'before:unset',
          `publish<${window.nextPublishAt ?? 'none'}`,
        ].join('\u0000');
        return new Keyed(key, window.generation, window.nextPublishAt ?? Infinity);
      },
    },
    {
      maxVariants: 1_000,
      documents: cachedDocument,
      variablesKey: (variables) =>
        JSON.stringify(Object.entries(variables).filter(([name]) => !WINDOW_VARIABLES.has(name))),
    },
  );
