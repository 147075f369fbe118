// A thread of the SignerPool: the RSA signature (~0.3 ms of CPU per POST) runs here, off the event loop.
import { parentPort } from 'node:worker_threads';
import { signRequest } from '../signatures/index.js';
import type { SignReply, SignTask } from './signer.protocol.js';

const port = parentPort;
if (!port) throw new Error('signer.thread runs only as a worker thread');

port.on('message', (task: SignTask) => {
  let reply: SignReply;
  try {
    const headers = signRequest(
      { method: 'POST', url: task.url, headers: task.headers, body: task.body },
      task.key,
    );
    reply = { id: task.id, headers };
  } catch (error) {
    reply = { id: task.id, error: error instanceof Error ? error.message : 'Signing failed' };
  }
  port.postMessage(reply);
});
port.postMessage({ id: 0, ready: true } satisfies SignReply);
