import { expect } from 'chai';
import { createServer, type Server, type Socket } from 'node:net';
import { checkDatabase } from './database.health.js';
import { createSequelize } from './sequelize.factory.js';
import { withTestDatabase } from './testing/index.js';

/** A TCP server that accepts connections and never says a word: a hung database. */
async function silentServer(): Promise<{ server: Server; port: number; sockets: Socket[] }> {
  const sockets: Socket[] = [];
  const server = createServer((socket) => sockets.push(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as { port: number }).port, sockets };
}

describe('checkDatabase', () => {
  const database = withTestDatabase('health');

  it('reports ok and the round-trip latency', async () => {
    const sequelize = createSequelize({ url: database.url });
    try {
      const result = await checkDatabase(sequelize);
      expect(result.ok).to.equal(true);
      expect(result.error).to.equal(undefined);
      expect(result.latencyMs).to.be.a('number').and.at.least(0);
    } finally {
      await sequelize.close();
    }
  });

  it('reports a refused connection', async () => {
    const { server, port } = await silentServer();
    await new Promise((resolve) => server.close(resolve)); // nothing listens there now
    const sequelize = createSequelize({ url: `postgres://postgres@127.0.0.1:${port}/nowhere` });
    try {
      const result = await checkDatabase(sequelize, 1_000);
      expect(result.ok).to.equal(false);
      expect(result.error).to.contain('ECONNREFUSED');
    } finally {
      await sequelize.close();
    }
  });

  it('gives up on a server that never answers within the timeout', async () => {
    const { server, port, sockets } = await silentServer();
    const sequelize = createSequelize({ url: `postgres://postgres@127.0.0.1:${port}/nowhere` });
    try {
      const started = Date.now();
      const result = await checkDatabase(sequelize, 300);
      expect(result.ok).to.equal(false);
      expect(result.error).to.contain('300 ms');
      expect(Date.now() - started).to.be.below(1_300);
    } finally {
      for (const socket of sockets) socket.destroy();
      server.close();
      await sequelize.close();
    }
  });
});
