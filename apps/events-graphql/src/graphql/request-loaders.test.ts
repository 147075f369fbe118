import { expect } from 'chai';
import { startTestServer, type TestServer } from '../testing/test-server.js';
import { RequestContext } from './context.js';

describe('request-scoped loaders', () => {
  let server: TestServer;
  let owners: string[];

  before(async () => {
    server = await startTestServer('request-loaders');
    owners = [];
    for (const name of ['ada', 'bob']) {
      const { user } = await server.ctx.accounts.create({ email: `${name}@example.org`, provider: 'ldap' });
      const session = (await server.ctx.users.findSession(user.id))!;
      await server.ctx.persons.create(session, { preferredUsername: name, name, summary: '' });
      owners.push(user.id);
    }
  });
  after(() => server?.stop());

  const operation = () => new RequestContext(server.ctx, { headers: {} }, 100);

  it('builds the loaders of an operation once, on first use, and never shares them', () => {
    const first = operation();
    expect(first.loaders).to.equal(first.loaders);
    expect(first.loaders.persons).to.equal(first.loaders.persons);
    expect(first.loaders.persons).to.not.equal(operation().loaders.persons);
  });

  it('batches the loads of one tick into one query through the view', async () => {
    const queries: string[] = [];
    server.ctx.sequelize.addHook('afterQuery', 'count', (_options, query) => {
      queries.push(String((query as { sql?: string }).sql ?? ''));
    });
    try {
      const { identities } = operation().loaders.persons;
      const [ada, bob] = await Promise.all(owners.map((id) => identities.load(id)));
      expect(ada!.map((actor) => actor.username)).to.deep.equal(['ada']);
      expect(bob!.map((actor) => actor.username)).to.deep.equal(['bob']);
      // Only the identity reads count: the actor-key job of the new profiles may query `actors` meanwhile.
      const identityReads = queries.filter(
        (sql) => sql.includes('FROM "actors"') && sql.includes('"user_id" IN'),
      );
      expect(identityReads).to.have.length(1);
    } finally {
      server.ctx.sequelize.removeHook('afterQuery', 'count');
    }
  });
});
