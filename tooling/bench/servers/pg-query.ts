// Baseline: the database ceiling — node:http plus one primary-key query through a pg Pool.
import { createServer, type ServerResponse } from 'node:http';
import pg from 'pg';
import { loadServerEnv, stopOnSignal } from './env.js';

const ROWS = 1000;
const env = loadServerEnv();
if (!env.DATABASE_URL) throw new Error('pg-query baseline needs DATABASE_URL');
const pool = new pg.Pool({ connectionString: env.DATABASE_URL, max: env.DB_POOL_MAX });

await pool.query(`CREATE TABLE IF NOT EXISTS bench_items (
  id integer PRIMARY KEY, name text NOT NULL, score integer NOT NULL, created_at timestamptz NOT NULL DEFAULT now())`);
await pool.query(
  `INSERT INTO bench_items (id, name, score)
   SELECT i, 'item ' || i, i * 7 % 100 FROM generate_series(1, $1::int) AS i ON CONFLICT (id) DO NOTHING`,
  [ROWS],
);

const HEALTH = JSON.stringify({ status: 'ok' });
let next = 0;

function send(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
}

const server = createServer((req, res) => {
  if (req.url === '/health') return send(res, 200, HEALTH);
  // Rotate through the rows so each request reads a different one.
  next = (next % ROWS) + 1;
  pool
    .query({
      name: 'bench-item-by-id',
      text: 'SELECT id, name, score, created_at FROM bench_items WHERE id = $1',
      values: [next],
    })
    .then(
      (result) =>
        send(
          res,
          result.rows[0] ? 200 : 404,
          JSON.stringify(result.rows[0] ?? { error: 'Record not found' }),
        ),
      () => send(res, 500, JSON.stringify({ error: 'query failed' })),
    );
});

server.listen(env.PORT, env.HOST);
stopOnSignal(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await pool.end();
});
