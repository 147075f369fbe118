import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  FetchNetworkError,
  FetchRedirectError,
  FetchRefusedError,
  FetchTimeoutError,
  FetchTooLargeError,
} from './fetch.errors.js';
import {
  createGuardedFetch,
  type GuardedFetch,
  type GuardedFetchOptions,
  type SignableRequest,
} from './guarded-fetch.js';

type Handler = (req: http.IncomingMessage, res: http.ServerResponse, body: Buffer) => void;

interface TestServer {
  port: number;
  origin: string;
  /** Requests that reached the server, with their headers and body. */
  seen: { method: string; path: string; headers: http.IncomingHttpHeaders; body: Buffer }[];
  close(): Promise<void>;
}

async function startServer(handler: Handler): Promise<TestServer> {
  const seen: TestServer['seen'] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      seen.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body });
      handler(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    origin: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function failure(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected the request to fail');
}

const userAgent = 'Agora/0.1 (+https://agora.test/)';

describe('guarded fetch', () => {
  const servers: TestServer[] = [];
  const clients: GuardedFetch[] = [];

  async function server(handler: Handler): Promise<TestServer> {
    const started = await startServer(handler);
    servers.push(started);
    return started;
  }

  function client(options: Partial<GuardedFetchOptions> = {}): GuardedFetch {
    const created = createGuardedFetch({ userAgent, ...options });
    clients.push(created);
    return created;
  }

  afterEach(async () => {
    for (const c of clients.splice(0)) c.close();
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });

  const json: Handler = (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/activity+json' });
    res.end(JSON.stringify({ type: 'Person', id: 'https://remote.test/users/alice' }));
  };

  it('fetches from an allow-listed loopback server, with user agent and date', async () => {
    const remote = await server(json);
    const fetch = client({ allowPrivateHosts: [`127.0.0.1:${remote.port}`] });

    const response = await fetch.get(`${remote.origin}/users/alice`, {
      headers: { Accept: 'application/activity+json' },
    });

    expect(response.status).to.equal(200);
    expect(response.ok).to.equal(true);
    expect(response.url).to.equal(`${remote.origin}/users/alice`);
    expect(response.headers['content-type']).to.equal('application/activity+json');
    expect(response.json()).to.deep.equal({ type: 'Person', id: 'https://remote.test/users/alice' });
    const [request] = remote.seen;
    expect(request?.headers['user-agent']).to.equal(userAgent);
    expect(request?.headers['accept']).to.equal('application/activity+json');
    expect(Date.parse(String(request?.headers['date']))).to.be.closeTo(Date.now(), 60_000);
  });

  describe('refuses private and special-use targets that are not allow-listed', () => {
    let remote: TestServer;
    beforeEach(async () => {
      remote = await server(json);
    });

    const targets = (port: number): string[] => [
      `http://127.0.0.1:${port}/`,
      'http://10.0.0.1/',
      `http://[::ffff:127.0.0.1]:${port}/`,
      'http://[::ffff:7f00:1]/',
      'http://[::127.0.0.1]/',
      `http://[::1]:${port}/`,
      'http://169.254.169.254/latest/meta-data',
      `http://0x7f.1:${port}/`, // URL parsing turns this into 127.0.0.1
      `http://2130706433:${port}/`,
    ];

    it('refuses each literal address without connecting', async () => {
      const fetch = client();
      for (const target of targets(remote.port)) {
        const error = await failure(fetch.get(target));
        expect(error, target).to.be.instanceOf(FetchRefusedError);
        expect((error as FetchRefusedError).reason, target).to.equal('private_address');
        expect((error as FetchRefusedError).retryable).to.equal(false);
      }
      expect(remote.seen).to.have.length(0);
    });

    it('refuses a host name that resolves to loopback (checked at connect time)', async () => {
      const fetch = client({ resolver: async () => [{ address: '127.0.0.1', family: 4 }] });
      const error = await failure(fetch.get(`http://innocent.example:${remote.port}/`));
      expect(error).to.be.instanceOf(FetchRefusedError);
      expect((error as FetchRefusedError).reason).to.equal('private_address');
      expect(error.message).not.to.contain('127.0.0.1');
      expect(remote.seen).to.have.length(0);
    });

    it('refuses localhost through the system resolver', async () => {
      const error = await failure(client().get(`http://localhost:${remote.port}/`));
      expect(error).to.be.instanceOf(FetchRefusedError);
      expect(remote.seen).to.have.length(0);
    });

    it('refuses a host when any of its addresses is private (no round-robin smuggling)', async () => {
      const fetch = client({
        resolver: async () => [
          { address: '93.184.216.34', family: 4 },
          { address: '127.0.0.1', family: 4 },
        ],
      });
      const error = await failure(fetch.get(`http://mixed.example:${remote.port}/`));
      expect(error).to.be.instanceOf(FetchRefusedError);
    });
  });

  it('connects an allow-listed name to the address its resolver returned', async () => {
    const remote = await server(json);
    const resolved: string[] = [];
    const fetch = client({
      allowPrivateHosts: ['peer.test'],
      resolver: async (host) => {
        resolved.push(host);
        return [{ address: '127.0.0.1', family: 4 }];
      },
    });

    const response = await fetch.get(`http://peer.test:${remote.port}/users/alice`);

    expect(response.status).to.equal(200);
    expect(resolved).to.deep.equal(['peer.test']);
    expect(remote.seen[0]?.headers.host).to.equal(`peer.test:${remote.port}`);
  });

  it('refuses an allow-listed server redirecting to a private address that is not', async () => {
    const inner = await server(json);
    const outer = await server((req, res) => {
      const target =
        req.url === '/metadata' ? 'http://169.254.169.254/latest/meta-data' : `${inner.origin}/secret`;
      res.writeHead(302, { location: target }).end();
    });
    const fetch = client({ allowPrivateHosts: [`127.0.0.1:${outer.port}`] });

    for (const path of ['/internal', '/metadata']) {
      const error = await failure(fetch.get(`${outer.origin}${path}`));
      expect(error, path).to.be.instanceOf(FetchRefusedError);
      expect((error as FetchRefusedError).reason).to.equal('private_address');
    }
    expect(outer.seen).to.have.length(2);
    expect(inner.seen).to.have.length(0);
  });

  it('follows two redirects and refuses a third', async () => {
    const remote = await server((req, res) => {
      const hop = /^\/r(\d)$/.exec(req.url ?? '');
      if (!hop) return json(req, res, Buffer.alloc(0));
      const next = Number(hop[1]) - 1;
      res.writeHead(301, { location: next === 0 ? '/final' : `/r${next}` }).end();
    });
    const fetch = client({ allowPrivateHosts: [`127.0.0.1:${remote.port}`] });

    const twice = await fetch.get(`${remote.origin}/r2`);
    expect(twice.status).to.equal(200);
    expect(twice.url).to.equal(`${remote.origin}/final`);

    const error = await failure(fetch.get(`${remote.origin}/r3`));
    expect(error).to.be.instanceOf(FetchRedirectError);
    expect((error as FetchRedirectError).reason).to.equal('too_many');
    expect(remote.seen.map((r) => r.path)).to.deep.equal(['/r2', '/r1', '/final', '/r3', '/r2', '/r1']);
  });

  it('continues a POST answered with 303 as a GET without the body', async () => {
    const remote = await server((req, res) => {
      if (req.url === '/inbox') return void res.writeHead(303, { location: '/done' }).end();
      json(req, res, Buffer.alloc(0));
    });
    const fetch = client({ allowPrivateHosts: [`127.0.0.1:${remote.port}`] });

    const response = await fetch.post(`${remote.origin}/inbox`, '{"type":"Follow"}', {
      headers: { 'Content-Type': 'application/activity+json' },
    });

    expect(response.status).to.equal(200);
    const [post, get] = remote.seen;
    expect(post?.method).to.equal('POST');
    expect(post?.body.toString()).to.equal('{"type":"Follow"}');
    expect(get?.method).to.equal('GET');
    expect(get?.body.length).to.equal(0);
    expect(get?.headers['content-type']).to.equal(undefined);
  });

  it('gives up on a server dribbling bytes once the total time budget is spent', async () => {
    const remote = await server((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      // A byte every 20 ms never trips an idle timeout, only a total one.
      const drip = setInterval(() => res.write('.'), 20);
      res.on('close', () => clearInterval(drip));
    });
    const fetch = client({ allowPrivateHosts: [`127.0.0.1:${remote.port}`], timeoutMs: 300 });

    const started = performance.now();
    const error = await failure(fetch.get(`${remote.origin}/slow`));
    const elapsed = performance.now() - started;

    expect(error).to.be.instanceOf(FetchTimeoutError);
    expect((error as FetchTimeoutError).retryable).to.equal(true);
    expect(elapsed).to.be.within(250, 1500);
  });

  it('gives up on a server that never sends headers', async () => {
    const remote = await server(() => undefined);
    const fetch = client({ allowPrivateHosts: [`127.0.0.1:${remote.port}`] });

    const error = await failure(fetch.get(`${remote.origin}/hang`, { timeoutMs: 200 }));

    expect(error).to.be.instanceOf(FetchTimeoutError);
  });

  it('cuts a body that grows past the cap instead of buffering it', async () => {
    let sent = 0;
    let resolveClosed: () => void = () => undefined;
    const closed = new Promise<void>((resolve) => (resolveClosed = resolve));
    const remote = await server((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      const chunk = Buffer.alloc(16 * 1024, 'a');
      // Endless body: only the client hanging up ends this response.
      const pump = (): void => {
        while (!res.destroyed && res.write(chunk)) sent += chunk.length;
      };
      res.on('drain', pump);
      res.on('close', resolveClosed);
      pump();
    });
    const fetch = client({ allowPrivateHosts: [`127.0.0.1:${remote.port}`], maxBodyBytes: 64 * 1024 });

    const error = await failure(fetch.get(`${remote.origin}/huge`));
    await closed;

    expect(error).to.be.instanceOf(FetchTooLargeError);
    expect((error as FetchTooLargeError).maxBodyBytes).to.equal(64 * 1024);
    expect(sent).to.be.below(16 * 1024 * 1024);
  });

  it('refuses a declared Content-Length above the cap before reading the body', async () => {
    const remote = await server((_req, res) => {
      res.writeHead(200, { 'content-length': String(50 * 1024 * 1024) });
      res.flushHeaders(); // headers only; the body never comes
    });
    const fetch = client({ allowPrivateHosts: [`127.0.0.1:${remote.port}`], timeoutMs: 5_000 });

    const started = performance.now();
    const error = await failure(fetch.get(`${remote.origin}/declared`));

    expect(error).to.be.instanceOf(FetchTooLargeError);
    expect(performance.now() - started).to.be.below(2_000);
  });

  it('lets a per-call cap admit a larger body (media)', async () => {
    const payload = Buffer.alloc(2 * 1024 * 1024, 7);
    const remote = await server((_req, res) => res.end(payload));
    const fetch = client({ allowPrivateHosts: [`127.0.0.1:${remote.port}`] });

    expect(await failure(fetch.get(`${remote.origin}/media`))).to.be.instanceOf(FetchTooLargeError);
    const response = await fetch.get(`${remote.origin}/media`, { maxBodyBytes: 4 * 1024 * 1024 });
    expect(response.body.equals(payload)).to.equal(true);
  });

  it('sends the headers the sign hook returns, computed over the final request', async () => {
    const remote = await server(json);
    const signed: SignableRequest[] = [];
    const fetch = client({
      allowPrivateHosts: [`127.0.0.1:${remote.port}`],
      sign: async (request) => {
        signed.push(request);
        return {
          Signature: 'keyId="https://agora.test/actor#main-key",signature="c2ln"',
          Digest: 'SHA-256=abc',
        };
      },
    });
    const activity = '{"type":"Create"}';

    await fetch.post(`${remote.origin}/inbox`, activity, {
      headers: { 'Content-Type': 'application/activity+json' },
    });

    const [received] = remote.seen;
    expect(received?.headers['signature']).to.equal(
      'keyId="https://agora.test/actor#main-key",signature="c2ln"',
    );
    expect(received?.headers['digest']).to.equal('SHA-256=abc');
    const [request] = signed;
    expect(request?.method).to.equal('POST');
    expect(request?.url.href).to.equal(`${remote.origin}/inbox`);
    expect(request?.headers).to.include({
      host: `127.0.0.1:${remote.port}`,
      'content-type': 'application/activity+json',
      date: received?.headers['date'],
    });
    expect(Buffer.from(request?.body ?? []).toString()).to.equal(activity);
  });

  it('refuses blocked domains before connecting and after a redirect', async () => {
    const resolved: string[] = [];
    const remote = await server((_req, res) =>
      res.writeHead(302, { location: 'http://evil.blocked.test/' }).end(),
    );
    const fetch = client({
      allowPrivateHosts: [`127.0.0.1:${remote.port}`],
      blockedHosts: (host) => host === 'blocked.test' || host.endsWith('.blocked.test'),
      resolver: async (host) => {
        resolved.push(host);
        return [{ address: '127.0.0.1', family: 4 }];
      },
    });

    const direct = await failure(fetch.get('https://BLOCKED.test/users/x'));
    expect(direct).to.be.instanceOf(FetchRefusedError);
    expect((direct as FetchRefusedError).reason).to.equal('blocked_host');

    const redirected = await failure(fetch.get(`${remote.origin}/`));
    expect((redirected as FetchRefusedError).reason).to.equal('blocked_host');
    expect(resolved).to.deep.equal([]);
  });

  it('refuses other schemes and hidden services', async () => {
    const fetch = client();
    for (const [target, reason] of [
      ['file:///etc/passwd', 'scheme'],
      ['gopher://example.com/', 'scheme'],
      ['http://abcdefghij234567.onion/', 'hidden_service'],
      ['http://site.i2p/', 'hidden_service'],
      ['not a url', 'bad_url'],
    ] as const) {
      const error = await failure(fetch.get(target));
      expect((error as FetchRefusedError).reason, target).to.equal(reason);
    }
  });

  it('reports a refused connection as a retryable network error without socket text', async () => {
    const gone = await startServer(json);
    await gone.close();
    const fetch = client({ allowPrivateHosts: [`127.0.0.1:${gone.port}`] });

    const error = await failure(fetch.get(`${gone.origin}/`));

    expect(error).to.be.instanceOf(FetchNetworkError);
    expect((error as FetchNetworkError).syscallCode).to.equal('ECONNREFUSED');
    expect((error as FetchNetworkError).retryable).to.equal(true);
    expect(error.message).not.to.contain('connect ECONNREFUSED 127.0.0.1');
  });
});
