import { expect } from 'chai';
import { Agent, createServer, request } from 'node:http';
import { closeHttp, listenHttp } from './http-server.js';

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
