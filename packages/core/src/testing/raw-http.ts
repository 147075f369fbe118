import { createConnection } from 'node:net';

/**
 * A raw connection to the server at `url` that sends `text` (then `drip` pieces, `everyMs` apart),
 * as a slow or silent client would; resolves when the server closes it, with the status it answered.
 */
export function rawHttpExchange(url: string, text: string, drip: string[] = [], everyMs = 0) {
  const socket = createConnection(Number(new URL(url).port), '127.0.0.1');
  const started = Date.now();
  let received = '';
  socket.on('data', (chunk: Buffer) => (received += chunk.toString('utf8')));
  socket.on('error', () => undefined);
  socket.write(text);
  const pieces = [...drip];
  const timer = setInterval(() => {
    const piece = pieces.shift();
    if (piece === undefined) clearInterval(timer);
    else socket.write(piece);
  }, everyMs || 1_000);
  return new Promise<{ afterMs: number; status: number; body: string }>((resolve) =>
    socket.on('close', () => {
      clearInterval(timer);
      const [head = '', body = ''] = received.split('\r\n\r\n');
      resolve({ afterMs: Date.now() - started, status: Number(head.split(' ')[1]), body });
    }),
  );
}
