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

/** A module's table and its counter, as the users module will contribute `numberOfUsers`. */
async function contributeUsers(server: TestServer): Promise<(count: number) => Promise<void>> {
  const { sequelize } = server.ctx;
  await sequelize.query('CREATE TABLE test_users (id serial PRIMARY KEY)');
  server.ctx.statistics.contribute('numberOfUsers', async () => {
    const [rows] = await sequelize.query('SELECT count(*)::int AS count FROM test_users');
    return (rows as Array<{ count: number }>)[0]!.count;
  });
  return async (count) => {
    await sequelize.query(`INSERT INTO test_users SELECT FROM generate_series(1, ${count})`);
  };
}

describe('statistics', () => {
  describe('with the default cache', () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer('statistics-cached');
    });
    after(() => server?.stop());

    it('counts 0 for what no module counts yet', async () => {
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

    it('shows a contributed count and keeps it for a while', async () => {
      const addUsers = await contributeUsers(server);
      await addUsers(2);
      expect((await statistics(server.url)).numberOfUsers).to.equal(2);
      await addUsers(1);
      expect((await statistics(server.url)).numberOfUsers).to.equal(2);
    });
  });

  describe('without cache', () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer('statistics-fresh', { STATISTICS_CACHE_SECONDS: '0' });
    });
    after(() => server?.stop());

    it('counts afresh on each query', async () => {
      const addUsers = await contributeUsers(server);
      await addUsers(2);
      expect((await statistics(server.url)).numberOfUsers).to.equal(2);
      await addUsers(3);
      expect((await statistics(server.url)).numberOfUsers).to.equal(5);
    });
  });
});
