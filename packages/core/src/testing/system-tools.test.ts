import { expect } from 'chai';
import { requireSystemTool } from './system-tools.js';

class Skipped extends Error {}

/** Stands for mocha's `this`: `skip()` throws, as mocha's does. */
function fakeTest(): { skip(): never; skipped: () => boolean } {
  let skipped = false;
  return {
    skip() {
      skipped = true;
      throw new Skipped();
    },
    skipped: () => skipped,
  };
}

/** What the call wrote to stderr, and what it resolved or threw. */
async function capture(
  run: () => Promise<string>,
): Promise<{ stderr: string; result?: string; error?: unknown }> {
  const write = process.stderr.write;
  let stderr = '';
  process.stderr.write = ((chunk: string | Uint8Array) => {
    stderr += String(chunk);
    return true;
  }) as typeof process.stderr.write;
  try {
    return { stderr, result: await run() };
  } catch (error) {
    return { stderr, error };
  } finally {
    process.stderr.write = write;
  }
}

// Issue 11 §13: one rule for system tools — skip with a notice locally, fail in CI.
describe('requireSystemTool', () => {
  const missing = '/nonexistent/agora-test/chromium';

  it('skips a test whose tool is missing, printing what to install, once per process', async () => {
    const first = fakeTest();
    const once = await capture(() =>
      requireSystemTool(first, 'chromium', { chromiumPath: missing, requireSystemTools: false }),
    );
    expect(once.error).to.be.instanceOf(Skipped);
    expect(first.skipped()).to.equal(true);
    expect(once.stderr).to.equal(
      `skipped: Chromium not found at ${missing} (apt-get install chromium, or set CHROMIUM_PATH)\n`,
    );
    const second = fakeTest();
    const twice = await capture(() =>
      requireSystemTool(second, 'chromium', { chromiumPath: missing, requireSystemTools: false }),
    );
    expect(twice.error).to.be.instanceOf(Skipped);
    expect(twice.stderr).to.equal('');
  });

  it('fails instead of skipping where tools are required (CI)', async () => {
    const test = fakeTest();
    const { error } = await capture(() =>
      requireSystemTool(test, 'chromium', { chromiumPath: missing, requireSystemTools: true }),
    );
    expect(test.skipped()).to.equal(false);
    expect(error).to.be.instanceOf(Error).and.not.instanceOf(Skipped);
    expect((error as Error).message).to.contain(`Chromium not found at ${missing}`);
  });

  it('answers the command to run when the tool is there', async () => {
    // `node` stands in for an installed Chromium: any executable file will do.
    const test = fakeTest();
    const { result } = await capture(() =>
      requireSystemTool(test, 'chromium', { chromiumPath: process.execPath, requireSystemTools: true }),
    );
    expect(result).to.equal(process.execPath);
    expect(test.skipped()).to.equal(false);
  });
});
