// Mocha's dot reporter, plus a JSON tally per run in AGORA_TEST_RESULTS (when set), so the root
// test command can print one "N passed, N failed" line for the whole workspace.
const { mkdirSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');
const Mocha = require('mocha');

class AgoraReporter extends Mocha.reporters.Dot {
  constructor(runner, options) {
    super(runner, options);
    runner.once(Mocha.Runner.constants.EVENT_RUN_END, () => {
      const dir = process.env.AGORA_TEST_RESULTS;
      if (!dir) return;
      mkdirSync(dir, { recursive: true });
      const { passes, failures, pending } = this.stats;
      const name = `${process.cwd().replace(/[^a-zA-Z0-9]+/g, '_')}-${process.pid}.json`;
      writeFileSync(join(dir, name), JSON.stringify({ cwd: process.cwd(), passes, failures, pending }));
    });
  }
}

module.exports = AgoraReporter;
