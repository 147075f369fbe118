import { expect } from 'chai';
import { graphql, startTestServer, type TestServer } from '../../testing/test-server.js';

const STATISTICS = `{ statistics {
  numberOfUsers numberOfEvents numberOfLocalEvents numberOfComments numberOfLocalComments
  numberOfGroups numberOfLocalGroups numberOfInstanceFollowers numberOfInstanceFollowings
} }`;

async function statistics(url: string): Promise<Record<string, number>> {
  const { body } = await graphql<{ statistics: Record<string, number> }>(url, STATISTICS);
  expect(body.errors).to.equal(undefined);
  return body.data!.statistics;
}

let nextUser = 1;

/** Accounts as the admin tool creates them: confirmed unless said otherwise. */
async function addUsers(server: TestServer, count: number, confirmed = true): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const { user } = await server.ctx.accounts.create({
      email: `user${nextUser++}@example.org`,
      password: 'long enough',
      confirmed,
    });
    ids.push(user.id);
  }
  return ids;
}

describe('statistics', () => {
  describe('with the default cache', () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer('statistics-cached');
    });
    after(() => server?.stop());

    it('counts 0 for what nobody has created', async () => {
      expect(await statistics(server.url)).to.deep.equal({
        numberOfUsers: 0,
        numberOfEvents: 0,
        numberOfLocalEvents: 0,
        numberOfComments: 0,
        numberOfLocalComments: 0,
        numberOfGroups: 0,
        numberOfLocalGroups: 0,
        numberOfInstanceFollowers: 0,
        numberOfInstanceFollowings: 0,
      });
    });

    it('keeps a count for a while', async () => {
      // The previous test cached 0: this server's figures stay as they were.
      await addUsers(server, 2);
      expect((await statistics(server.url)).numberOfUsers).to.equal(0);
    });
  });

  describe('without cache', () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer('statistics-fresh', { STATISTICS_CACHE_SECONDS: '0' });
    });
    after(() => server?.stop());

    it('counts afresh on each query', async () => {
      await addUsers(server, 2);
      expect((await statistics(server.url)).numberOfUsers).to.equal(2);
      await addUsers(server, 3);
      expect((await statistics(server.url)).numberOfUsers).to.equal(5);
    });

    it('counts confirmed accounts only, and not disabled ones', async () => {
      const initial = (await statistics(server.url)).numberOfUsers!;
      const [confirmed] = await addUsers(server, 1);
      await addUsers(server, 1, false);
      expect((await statistics(server.url)).numberOfUsers).to.equal(initial + 1);

      await server.ctx.sequelize.query('UPDATE users SET disabled = true WHERE id = $1', {
        bind: [confirmed],
      });
      expect((await statistics(server.url)).numberOfUsers).to.equal(initial);
    });
  });
});
