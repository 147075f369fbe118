import { readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { expect } from 'chai';
import { freePort } from './index.js';

describe('freePort', () => {
  it('hands out a port a server can then listen on, outside the range of outgoing connections', async () => {
    const ports = await Promise.all(Array.from({ length: 5 }, () => freePort()));
    const range = await readFile('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').catch(() => null);
    const low = range === null ? null : Number(range.trim().split(/\s+/)[0]);
    for (const port of ports) {
      // Client sockets are given ports from that range: a test server's port must not be one of them.
      if (low !== null && low > 11_024)
        expect(port)
          .to.be.below(low)
          .and.at.least(low - 10_000);
      const server = createServer();
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, '127.0.0.1', resolve);
      });
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
