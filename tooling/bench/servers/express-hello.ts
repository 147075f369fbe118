// Baseline: the framework ceiling — Express 5 answering a small JSON object with res.json.
import express from 'express';
import { loadServerEnv, stopOnSignal } from './env.js';

const env = loadServerEnv();
const app = express();
app.get('/health', (_req, res) => {
  res.json({ status: 'ok' });
});
app.get('/', (_req, res) => {
  res.json({ hello: 'world' });
});

const server = app.listen(env.PORT, env.HOST);
stopOnSignal(() => new Promise((resolve) => server.close(() => resolve())));
