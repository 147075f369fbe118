import { expect } from 'chai';
import { expectClosed, graphql, launchOnTestDatabases } from './processes.js';

// One launcher for the file: the tests below query it, then the last one stops it with Ctrl-C.
describe('npm start: both services as real processes, on given databases', function () {
  this.timeout(180_000);
  let started: Awaited<ReturnType<typeof launchOnTestDatabases>>;

  before(async () => {
    started = await launchOnTestDatabases('e2e');
    await started.launcher.waitFor('Press Ctrl-C to stop.');
  });
  after(async () => {
    started?.launcher.child.kill('SIGKILL');
    await started?.eventsDb.drop();
    await started?.microblogDb.drop();
  });

  it('serves GraphQL and REST against the given databases', async () => {
    const { launcher, eventsPort, microblogPort } = started;
    expect(launcher.output()).to.contain(`http://localhost:${eventsPort}/api`);
    expect(launcher.output()).to.contain(`http://localhost:${microblogPort}/api/v1/instance`);

    const events = `http://127.0.0.1:${eventsPort}`;
    const microblog = `http://127.0.0.1:${microblogPort}`;
    for (const base of [events, microblog]) {
      const health = await fetch(`${base}/health`);
      expect(health.status).to.equal(200);
      expect(await health.json()).to.deep.include({ status: 'ok', database: 'ok' });
    }

    const result = await graphql(events, '{ config { name registrationsOpen uploadLimits { default } } }');
    expect(result.errors).to.equal(undefined);
    const config = result.data?.config as { name: string; uploadLimits: { default: number } };
    expect(config.name).to.be.a('string').and.not.empty;
    expect(config.uploadLimits.default).to.equal(10_485_760);

    const instance = await fetch(`${microblog}/api/v1/instance`);
    expect(instance.status).to.equal(200);
    const body = (await instance.json()) as { uri: string; urls: { streaming_api: string } };
    expect(body.uri).to.equal(`localhost:${microblogPort}`);
    expect(body.urls.streaming_api).to.match(/^wss?:\/\//);

    const missing = await fetch(`${microblog}/api/v1/nothing-here`);
    expect(missing.status).to.equal(404);
    expect(await missing.json()).to.deep.equal({ error: 'Record not found' });
  });

  it('Ctrl-C stops everything cleanly', async () => {
    const { launcher, eventsPort, microblogPort } = started;
    launcher.child.kill('SIGINT');
    expect(await launcher.exited).to.equal(0);
    await expectClosed(eventsPort);
    await expectClosed(microblogPort);
  });
});
