// Baseline: the HTTP ceiling — node:http answering a small JSON object.
import { createServer } from 'node:http';
import { loadServerEnv, stopOnSignal } from './env.js';

const env = loadServerEnv();
const HEALTH = JSON.stringify({ status: 'ok' });

const server = createServer((req, res) => {
  const body = req.url === '/health' ? HEALTH : JSON.stringify({ hello: 'world' });
  res.writeHead(200, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
});

server.listen(env.PORT, env.HOST);
stopOnSignal(() => new Promise((resolve) => server.close(() => resolve())));
