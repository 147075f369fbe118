import { expect } from 'chai';
import { launchOnTestDatabases, waitClosed } from './processes.js';

// Its own file: the launcher this test starts ends by SIGKILL, so no other test can share it.
describe('npm start: a launcher killed outright', function () {
  this.timeout(180_000);

  it('leaves no service running when the launcher itself is killed with SIGKILL', async () => {
    const { launcher, eventsPort, microblogPort, eventsDb, microblogDb } =
      await launchOnTestDatabases('e2e_kill');
    try {
      await launcher.waitFor('Press Ctrl-C to stop.');
      expect((await fetch(`http://127.0.0.1:${eventsPort}/health`)).status).to.equal(200);
      launcher.child.kill('SIGKILL');
      await launcher.exited;
      await waitClosed(eventsPort, 20_000);
      await waitClosed(microblogPort, 20_000);
    } finally {
      await eventsDb.drop();
      await microblogDb.drop();
    }
  });
});
