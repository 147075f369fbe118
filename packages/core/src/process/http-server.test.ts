import { expect } from 'chai';
import { Agent, createServer, request } from 'node:http';
import { createConnection, type Socket } from 'node:net';
import { closeHttp, createHttpServer, listenHttp } from './http-server.js';

describe('HTTP server lifecycle', () => {
  it('listens on a free port and reports a URL that answers', async () => {
    const server = createServer((_req, res) => res.end('hi'));
    const { port, url } = await listenHttp(server, '127.0.0.1', 0);
    expect(port).to.be.greaterThan(0);
    expect(url).to.equal(`http://127.0.0.1:${port}`);
    expect(await (await fetch(url)).text()).to.equal('hi');
    await closeHttp(server);
  });

  it('refuses a port that is taken', async () => {
    const first = createServer();
    const { port } = await listenHttp(first, '127.0.0.1', 0);
    try {
      await listenHttp(createServer(), '127.0.0.1', port).then(
        () => expect.fail('listened twice on one port'),
        (error: NodeJS.ErrnoException) => expect(error.code).to.equal('EADDRINUSE'),
      );
    } finally {
      await closeHttp(first);
    }
  });

  it('closes with an idle keep-alive connection open, and cuts a hung response after the grace period', async () => {
    let hangReceived: () => void = () => {};
    const received = new Promise<void>((resolve) => (hangReceived = resolve));
    const server = createServer((req, res) => {
      if (req.url === '/hang') return hangReceived(); // never answers
      res.end('ok');
    });
    const { url } = await listenHttp(server, '127.0.0.1', 0);
    const agent = new Agent({ keepAlive: true });
    await new Promise<void>((resolve) =>
      request(url, { agent }, (res) => res.resume().on('end', resolve)).end(),
    );
    const hung = new Promise<string>((resolve) => {
      request(`${url}/hang`, { agent })
        .on('error', (error) => resolve(error.message))
        .end();
    });
    await received;
    const started = Date.now();
    await closeHttp(server, 200);
    expect(Date.now() - started).to.be.lessThan(5_000);
    expect(await hung).to.match(/socket hang up|ECONNRESET/);
    agent.destroy();
  });
});

describe('HTTP server patience with slow and silent clients (issue 12 §3)', () => {
  const TIMEOUTS = { headersMs: 400, bodyIdleMs: 400, requestMs: 3_000 };
  const errorBody = (status: number, message: string) => ({
    contentType: 'application/json',
    body: JSON.stringify({ error: message, status }),
  });

  /** A server whose handler reads the whole body before answering with its length. */
  async function bodyServer(timeouts = TIMEOUTS) {
    const server = createHttpServer(
      (req, res) => {
        if (req.url === '/early') return void res.end('answered before the body');
        let length = 0;
        req.on('data', (chunk: Buffer) => (length += chunk.length));
        req.on('end', () => res.end(`got ${length}`));
      },
      { timeouts, errorBody },
    );
    server.on('upgrade', (_req, socket: Socket) => {
      socket.write('HTTP/1.1 101 Switching Protocols\r\nUpgrade: echo\r\nConnection: Upgrade\r\n\r\n');
      socket.on('data', (chunk) => socket.write(chunk));
      socket.on('end', () => socket.end());
    });
    const { port } = await listenHttp(server, '127.0.0.1', 0);
    return { server, port };
  }

  /** A raw connection: what it received, and when (ms after connecting) the server closed it. */
  function connect(port: number) {
    const socket = createConnection(port, '127.0.0.1');
    const started = Date.now();
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('utf8')));
    const closed = new Promise<{ afterMs: number; received: string }>((resolve) => {
      socket.on('error', () => undefined);
      socket.on('close', () => resolve({ afterMs: Date.now() - started, received }));
    });
    return { socket, closed, received: () => received };
  }

  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it('answers 408 in the API format and closes when a declared body never comes', async () => {
    const { server, port } = await bodyServer();
    try {
      const client = connect(port);
      // The exact request of the issue: a length declared, nothing sent.
      client.socket.write('POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 2000000\r\n\r\n');
      const { afterMs, received } = await client.closed;
      expect(afterMs).to.be.within(TIMEOUTS.bodyIdleMs, TIMEOUTS.bodyIdleMs * 3);
      expect(received).to.match(/^HTTP\/1\.1 408 Request Timeout\r\n/);
      expect(received).to.match(/\r\nConnection: close\r\n/i);
      expect(received.split('\r\n\r\n')[1]).to.equal('{"error":"Request Timeout","status":408}');
    } finally {
      await closeHttp(server, 100);
    }
  });

  it('also times out a body that stops halfway, and cuts one the app answered without reading', async () => {
    const { server, port } = await bodyServer();
    try {
      const half = connect(port);
      half.socket.write('POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n0123456789');
      expect((await half.closed).received).to.match(/^HTTP\/1\.1 408 /);

      // Node would wait for the unread rest of the body before reusing or closing the connection.
      const early = connect(port);
      early.socket.write('POST /early HTTP/1.1\r\nHost: x\r\nContent-Length: 2000000\r\n\r\n');
      const { afterMs, received } = await early.closed;
      expect(received).to.match(/^HTTP\/1\.1 200 OK\r\n/);
      expect(received).to.include('answered before the body');
      expect(afterMs).to.be.lessThan(TIMEOUTS.bodyIdleMs * 3);
    } finally {
      await closeHttp(server, 100);
    }
  });

  it('lets a slow upload that keeps making progress finish, well past the idle limit', async () => {
    const { server, port } = await bodyServer();
    try {
      const client = connect(port);
      client.socket.write(
        'POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\nConnection: close\r\n\r\n',
      );
      const started = Date.now();
      for (let sent = 0; sent < 10; sent++) {
        await sleep(TIMEOUTS.bodyIdleMs / 2);
        client.socket.write('x');
      }
      const { received } = await client.closed;
      expect(Date.now() - started).to.be.greaterThan(TIMEOUTS.bodyIdleMs * 4);
      expect(received).to.match(/^HTTP\/1\.1 200 OK\r\n/);
      expect(received.endsWith('got 10')).to.equal(true);
    } finally {
      await closeHttp(server, 100);
    }
  });

  it('bounds a trickling request as a whole, and headers that never end, with a 408', async () => {
    const { server, port } = await bodyServer({ headersMs: 400, bodyIdleMs: 400, requestMs: 1_200 });
    try {
      const trickle = connect(port);
      trickle.socket.write('POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n');
      const drip = setInterval(() => trickle.socket.write('x'), 100);
      const { afterMs, received } = await trickle.closed;
      clearInterval(drip);
      expect(afterMs).to.be.within(1_200, 2_500);
      expect(received).to.match(/^HTTP\/1\.1 408 Request Timeout\r\n/);
      expect(received.split('\r\n\r\n')[1]).to.equal('{"error":"Request Timeout","status":408}');

      const silent = connect(port);
      silent.socket.write('GET / HTTP/1.1\r\nHost: x\r\n'); // the blank line never comes
      const headers = await silent.closed;
      expect(headers.afterMs).to.be.within(400, 1_200);
      expect(headers.received).to.match(/^HTTP\/1\.1 408 /);

      const nothing = await connect(port).closed;
      expect(nothing.afterMs).to.be.within(400, 1_200);
    } finally {
      await closeHttp(server, 100);
    }
  });

  it('answers unparseable HTTP with a 400 in the API format', async () => {
    const { server, port } = await bodyServer();
    try {
      const client = connect(port);
      client.socket.write('NOT HTTP AT ALL\r\n\r\n');
      const { received } = await client.closed;
      expect(received).to.match(/^HTTP\/1\.1 400 Bad Request\r\n/);
      expect(received.split('\r\n\r\n')[1]).to.equal('{"error":"Bad Request","status":400}');
    } finally {
      await closeHttp(server, 100);
    }
  });

  it('adds nothing per request to a kept-alive connection (many bodies on one socket)', async () => {
    const counts: number[] = [];
    const server = createHttpServer(
      (req, res) => {
        counts.push(req.socket.listenerCount('close') + req.socket.listenerCount('end'));
        req.resume().on('end', () => res.end('ok'));
      },
      { timeouts: TIMEOUTS, errorBody },
    );
    const { url } = await listenHttp(server, '127.0.0.1', 0);
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      for (let i = 0; i < 20; i++) {
        await new Promise<void>((resolve, reject) => {
          const req = request(url, { agent, method: 'POST' }, (res) => res.resume().on('end', resolve));
          req.on('error', reject);
          req.end('body');
        });
      }
      expect(counts).to.have.length(20);
      expect(new Set(counts).size).to.equal(1);
    } finally {
      agent.destroy();
      await closeHttp(server, 100);
    }
  });

  it('leaves an upgraded (WebSocket) connection alone, however long it is quiet', async () => {
    const { server, port } = await bodyServer();
    try {
      const client = connect(port);
      client.socket.write('GET /socket HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\n');
      await sleep(TIMEOUTS.requestMs + 500);
      client.socket.write('still here');
      await sleep(100);
      expect(client.received()).to.match(/^HTTP\/1\.1 101 /);
      expect(client.received().endsWith('still here')).to.equal(true);
      expect(client.socket.destroyed).to.equal(false);
      client.socket.destroy();
    } finally {
      await closeHttp(server, 100);
    }
  });
});
