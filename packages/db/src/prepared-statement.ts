import type { Sequelize, Transaction } from 'sequelize';

/** What a declaration says: a unique name, the SQL, and whether it writes (which pool to use). */
export interface PreparedStatementOptions {
  /** Unique per process, at most 63 bytes (PostgreSQL truncates longer names, so two could collide). */
  name: string;
  text: string;
  /** Takes a write connection (matters only with read replicas). */
  writes?: boolean;
}

/** The part of a `pg` client a statement uses (Sequelize's pool and transactions hold `pg` clients). */
interface PgConnection {
  query<Row>(config: StatementConfig, values: readonly unknown[]): Promise<{ rows: Row[] }>;
}

interface StatementConfig {
  readonly name: string;
  readonly text: string;
}

/** Name → text of every statement declared in this process: one name must mean one text on every connection. */
const declared = new Map<string, string>();

/**
 * A named prepared statement, declared once at module level: PostgreSQL parses and plans it once per
 * connection, not on every call (Sequelize sends unnamed statements). For hot reads and writes
 * that a Sequelize model would make slower; everything else goes through the models.
 */
export class PreparedStatement<Row extends object, Values extends readonly unknown[] = unknown[]> {
  readonly name: string;
  // The plain two-field object pg copies on each call: nothing else to clone.
  private readonly config: StatementConfig;
  private readonly acquire: { type: 'read' | 'write' };

  constructor(options: PreparedStatementOptions) {
    if (!/^[a-z_][a-z0-9_]*$/.test(options.name) || options.name.length > 63) {
      throw new Error(
        `Prepared statement name ${options.name}: lower-case letters, digits and _, at most 63`,
      );
    }
    const previous = declared.get(options.name);
    if (previous !== undefined && previous !== options.text) {
      throw new Error(`Prepared statement ${options.name} is declared twice with different SQL`);
    }
    declared.set(options.name, options.text);
    this.name = options.name;
    this.config = Object.freeze({ name: options.name, text: options.text });
    this.acquire = { type: options.writes ? 'write' : 'read' };
  }

  /**
   * The rows of one execution. Inside `transaction` it runs on the transaction's connection (sees
   * its uncommitted writes, rolls back with it; the connection stays the transaction's); otherwise
   * on a connection taken from the pool and given back whatever happens. Errors propagate as `pg`'s.
   */
  async rows(sequelize: Sequelize, values: Values, transaction?: Transaction | null): Promise<Row[]> {
    if (transaction) {
      const connection = (transaction as unknown as { connection?: PgConnection }).connection;
      if (!connection) throw new Error(`Prepared statement ${this.name}: the transaction has no connection`);
      return (await connection.query<Row>(this.config, values)).rows;
    }
    const manager = sequelize.connectionManager;
    const connection = (await manager.getConnection(this.acquire)) as PgConnection;
    try {
      return (await connection.query<Row>(this.config, values)).rows;
    } finally {
      manager.releaseConnection(connection);
    }
  }
}

/** Declares a statement (at module level, once): `preparedStatement<Row, [id: string]>({ name, text })`. */
export function preparedStatement<Row extends object, Values extends readonly unknown[] = unknown[]>(
  options: PreparedStatementOptions,
): PreparedStatement<Row, Values> {
  return new PreparedStatement<Row, Values>(options);
}
