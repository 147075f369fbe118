import { setTimeout as delay } from 'node:timers/promises';
import type { TestServer } from './server.js';

interface CountedConnection {
  query: (...args: unknown[]) => unknown;
  __counted?: true;
}

interface CounterState {
  texts: string[];
  width: number;
}

interface CountedManager {
  getConnection: (...args: unknown[]) => Promise<CountedConnection>;
  __counters?: Set<CounterState>;
}

/** The statements a server sent since the last reset: how many, and each one's text (whitespace folded). */
export interface StatementCounter {
  reset(): void;
  /**
   * Resolves once the server has sent no statement for `quietMs` (what earlier requests set off —
   * jobs, listeners — has finished), with the count reset.
   */
  settled(quietMs?: number): Promise<void>;
  readonly count: number;
  readonly texts: string[];
}

/**
 * Counts every statement the server sends through its database pool (Sequelize queries, prepared
 * statements, transactions), by wrapping each pooled connection's `query` once. Job queue and
 * pub/sub connections are their own pools and are not counted. Texts are cut at `width` characters.
 */
export function countStatements(t: TestServer, width = 200): StatementCounter {
  const state = { texts: [] as string[], width };
  const manager = t.ctx.sequelize.connectionManager as unknown as CountedManager;
  // Every counter of this server hears every statement: a connection wrapped for an earlier counter
  // (in an earlier test of the same file) reports to the counters made since as well.
  if (manager.__counters === undefined) {
    const counters = new Set<CounterState>();
    manager.__counters = counters;
    const original = manager.getConnection.bind(manager);
    manager.getConnection = async (...args: unknown[]) => {
      const connection = await original(...args);
      if (!connection.__counted) {
        const query = connection.query.bind(connection);
        connection.query = (...queryArgs: unknown[]) => {
          const first = queryArgs[0];
          const text = (typeof first === 'string' ? first : (first as { text?: string } | null)?.text) ?? '';
          const folded = text.replace(/\s+/g, ' ');
          for (const counter of counters) counter.texts.push(folded.slice(0, counter.width));
          return query(...queryArgs);
        };
        connection.__counted = true;
      }
      return connection;
    };
  }
  manager.__counters.add(state);
  return {
    reset() {
      state.texts = [];
    },
    async settled(quietMs = 150) {
      for (;;) {
        state.texts = [];
        await delay(quietMs);
        if (state.texts.length === 0) return;
      }
    },
    get count() {
      return state.texts.length;
    },
    get texts() {
      return state.texts;
    },
  };
}
