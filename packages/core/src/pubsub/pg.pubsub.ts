import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import type { Logger } from '../logger/logger.js';
import { deliver, serialize, type PubSub, type PubSubHandler, type Unsubscribe } from './pubsub.port.js';

export interface PgPubSubOptions {
  connectionString: string;
  logger: Logger;
  /** Longest wait for the connection before `publish`/`subscribe` fail (e.g. while the database is down). */
  connectTimeoutMs?: number;
  /** Pauses between reconnection attempts grow from the first to the second, doubling. */
  reconnectDelayMs?: [number, number];
  /** Shown in pg_stat_activity; 'agora-pubsub' by default. */
  applicationName?: string;
}

/** PostgreSQL refuses NOTIFY payloads of 8000 bytes or more. */
export const NOTIFY_PAYLOAD_LIMIT_BYTES = 7999;

/** LISTEN takes an identifier, not a parameter: any channel name becomes a safe, fixed-length one. */
export function notifyChannelName(channel: string): string {
  return `agora_${createHash('sha256').update(channel).digest('hex').slice(0, 40)}`;
}

/**
 * Pub/sub across processes over PostgreSQL LISTEN/NOTIFY, on one dedicated connection that LISTENs only
 * while a channel has local subscribers. After a dropped connection it reconnects with backoff and
 * LISTENs again; messages published while it was down are lost (nothing is stored).
 */
export function createPgPubSub(options: PgPubSubOptions): PubSub {
  return new PgPubSub(options);
}

interface Connection {
  client: pg.Client;
  /** Channels LISTENed on this connection. */
  listening: Set<string>;
  lost: boolean;
}

interface Channel {
  name: string;
  handlers: Set<PubSubHandler>;
}

class PgPubSub implements PubSub {
  private readonly logger: Logger;
  private readonly channels = new Map<string, Channel>();
  private connection: Connection | null = null;
  private connecting: Promise<Connection> | null = null;
  /** LISTEN/UNLISTEN run one at a time, so the connection's state follows the subscriptions in order. */
  private listenQueue: Promise<void> = Promise.resolve();
  private readonly closing = new AbortController();

  constructor(private readonly options: PgPubSubOptions) {
    this.logger = options.logger.child({ component: 'pubsub' });
  }

  async publish(channel: string, payload: unknown): Promise<void> {
    this.assertOpen();
    const json = serialize(channel, payload);
    const bytes = Buffer.byteLength(json, 'utf8');
    if (bytes > NOTIFY_PAYLOAD_LIMIT_BYTES) {
      throw new RangeError(
        `pub/sub channel "${channel}": payload is ${bytes} bytes of JSON; PostgreSQL NOTIFY carries at most ${NOTIFY_PAYLOAD_LIMIT_BYTES}. Publish an id and let subscribers load the rest.`,
      );
    }
    await this.withConnection((connection) =>
      connection.client.query('SELECT pg_notify($1, $2)', [notifyChannelName(channel), json]),
    );
  }

  async subscribe(channel: string, handler: PubSubHandler): Promise<Unsubscribe> {
    this.assertOpen();
    const id = notifyChannelName(channel);
    let entry = this.channels.get(id);
    if (!entry) {
      entry = { name: channel, handlers: new Set() };
      this.channels.set(id, entry);
    }
    // A wrapper, so the same function subscribed twice is two subscriptions.
    const subscription: PubSubHandler = (payload) => handler(payload);
    entry.handlers.add(subscription);
    const remove = () => {
      const current = this.channels.get(id);
      current?.handlers.delete(subscription);
      if (current?.handlers.size === 0) this.channels.delete(id);
    };
    try {
      await this.syncListen(id);
    } catch (err) {
      remove();
      void this.syncListen(id).catch(() => undefined);
      throw err;
    }
    let done = false;
    return async () => {
      if (done) return;
      done = true;
      remove();
      if (!this.closing.signal.aborted) await this.syncListen(id);
    };
  }

  async close(): Promise<void> {
    if (this.closing.signal.aborted) return;
    this.closing.abort();
    this.channels.clear();
    const connection = this.connection;
    this.connection = null;
    if (connection) {
      connection.lost = true;
      await connection.client.end().catch(() => undefined);
    }
    await this.connecting?.catch(() => undefined);
  }

  private assertOpen(): void {
    if (this.closing.signal.aborted) throw new Error('PubSub is closed');
  }

  private syncListen(id: string): Promise<void> {
    const run = this.listenQueue.then(() => this.reconcile(id));
    this.listenQueue = run.catch(() => undefined);
    return run;
  }

  /** LISTENs or UNLISTENs so that the connection listens to `id` exactly while it has subscribers here. */
  private async reconcile(id: string): Promise<void> {
    if (!this.channels.has(id) && !this.connection) return;
    await this.withConnection(async (connection) => {
      const wanted = this.channels.has(id);
      if (wanted && !connection.listening.has(id)) {
        await connection.client.query(`LISTEN ${id}`);
        connection.listening.add(id);
      } else if (!wanted && connection.listening.has(id)) {
        await connection.client.query(`UNLISTEN ${id}`);
        connection.listening.delete(id);
      }
    });
  }

  /** Runs `action` on the live connection; if the connection dies under it, once more on the next one. */
  private async withConnection<T>(action: (connection: Connection) => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt += 1) {
      const connection = await this.connect();
      try {
        return await action(connection);
      } catch (err) {
        if (!connection.lost && !isConnectionError(err)) throw err;
        this.onLost(connection, err);
        if (attempt >= 1) throw err;
      }
    }
  }

  private connect(): Promise<Connection> {
    if (this.closing.signal.aborted) return Promise.reject(new Error('PubSub is closed'));
    if (this.connection && !this.connection.lost) return Promise.resolve(this.connection);
    const timeoutMs = this.options.connectTimeoutMs ?? 10_000;
    return withTimeout(
      this.startConnecting(),
      timeoutMs,
      () => new Error(`pub/sub: no database connection after ${timeoutMs} ms`),
    );
  }

  private startConnecting(): Promise<Connection> {
    if (!this.connecting) {
      this.connecting = this.connectWithBackoff().finally(() => (this.connecting = null));
      this.connecting.catch(() => undefined);
    }
    return this.connecting;
  }

  private async connectWithBackoff(): Promise<Connection> {
    const [firstDelay, maxDelay] = this.options.reconnectDelayMs ?? [100, 5000];
    for (let attempt = 0; ; attempt += 1) {
      try {
        return await this.open();
      } catch (err) {
        if (this.closing.signal.aborted) throw new Error('PubSub is closed');
        const delay = Math.min(maxDelay, firstDelay * 2 ** attempt);
        this.logger.warn(
          { error: errorMessage(err), retryInMs: delay },
          'pub/sub cannot connect to the database',
        );
        await sleep(delay, undefined, { signal: this.closing.signal }).catch(() => undefined);
        if (this.closing.signal.aborted) throw new Error('PubSub is closed');
      }
    }
  }

  private async open(): Promise<Connection> {
    const client = new pg.Client({
      connectionString: this.options.connectionString,
      application_name: this.options.applicationName ?? 'agora-pubsub',
      keepAlive: true,
    });
    const connection: Connection = { client, listening: new Set(), lost: false };
    client.on('error', (err) => this.onLost(connection, err));
    client.on('end', () => this.onLost(connection));
    client.on('notification', (message) => this.onNotification(message));
    try {
      await client.connect();
      // Listen again to everything subscribed here before anyone can use the connection.
      for (const id of this.channels.keys()) {
        await client.query(`LISTEN ${id}`);
        connection.listening.add(id);
      }
    } catch (err) {
      connection.lost = true;
      await client.end().catch(() => undefined);
      throw err;
    }
    if (this.closing.signal.aborted || connection.lost) {
      connection.lost = true;
      await client.end().catch(() => undefined);
      throw new Error(
        this.closing.signal.aborted ? 'PubSub is closed' : 'pub/sub connection dropped while opening',
      );
    }
    this.connection = connection;
    return connection;
  }

  private onLost(connection: Connection, err?: unknown): void {
    if (connection.lost) return;
    connection.lost = true;
    if (this.connection === connection) this.connection = null;
    connection.client.end().catch(() => undefined);
    if (this.closing.signal.aborted) return;
    this.logger.warn(
      { error: err === undefined ? 'connection ended' : errorMessage(err) },
      'pub/sub connection lost',
    );
    // Subscribers expect delivery to resume by itself; without any, the next publish reconnects.
    if (this.channels.size > 0) {
      void this.startConnecting().then(
        () => this.logger.info('pub/sub connection restored'),
        () => undefined,
      );
    }
  }

  private onNotification(message: pg.Notification): void {
    const entry = this.channels.get(message.channel);
    if (!entry || message.payload === undefined) return;
    for (const handler of [...entry.handlers]) {
      let payload: unknown;
      try {
        // Parsed per handler: each gets its own copy, as with InProcessPubSub.
        payload = JSON.parse(message.payload);
      } catch {
        this.logger.warn({ channel: entry.name }, 'pub/sub message is not JSON; dropped');
        return;
      }
      deliver([handler], entry.name, payload, this.logger);
    }
  }
}

/** Errors that mean the connection is gone, not that the statement was wrong. */
function isConnectionError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && (code.startsWith('08') || code.startsWith('57P'))) return true;
  const message = errorMessage(err);
  return /Connection terminated|not queryable|Client was closed|ECONNRESET|EPIPE/i.test(message);
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

async function withTimeout<T>(promise: Promise<T>, ms: number, error: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(error()), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
