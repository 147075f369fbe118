import { spawn } from 'node:child_process';
import { access, constants } from 'node:fs/promises';
import { testSettings } from '../config/service.js';

/** Programs some tests need that npm cannot install: CI installs them (`.ci/run`). */
export type SystemTool = 'ffmpeg' | 'chromium' | 'pdftotext';

interface ToolCheck {
  /** What to run (ffmpeg and pdftotext: looked up on PATH) or the executable to find (Chromium). */
  command: string;
  /** Whether the tool is there. */
  present(): Promise<boolean>;
  /** Why it is missing and how to get it, for the notice. */
  missing: string;
}

function tools(chromiumPath: string): Record<SystemTool, ToolCheck> {
  return {
    // The media pipeline needs ffprobe beside ffmpeg; Debian's package has both.
    ffmpeg: {
      command: 'ffmpeg',
      present: async () => (await runs('ffmpeg', '-version')) && (await runs('ffprobe', '-version')),
      missing: 'ffmpeg not installed (apt-get install ffmpeg)',
    },
    chromium: {
      command: chromiumPath,
      present: () =>
        access(chromiumPath, constants.X_OK).then(
          () => true,
          () => false,
        ),
      missing: `Chromium not found at ${chromiumPath} (apt-get install chromium, or set CHROMIUM_PATH)`,
    },
    pdftotext: {
      command: 'pdftotext',
      present: () => runs('pdftotext', '-v'),
      missing: 'pdftotext not installed (apt-get install poppler-utils)',
    },
  };
}

/** Whether the program starts at all (its exit code does not matter: some print versions as errors). */
function runs(command: string, flag: string): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn(command, [flag], { stdio: 'ignore', timeout: 10_000 });
    child.once('error', () => resolve(false));
    child.once('spawn', () => resolve(true));
  });
}

// Keyed by tool and command: a process checks each once and prints each notice once.
const checked = new Map<string, Promise<boolean>>();
const noticed = new Set<string>();

/**
 * The one rule for tests that need a system tool: returns the command to run when it is installed;
 * otherwise skips the test (in a hook: the suite) with a printed notice, except where missing tools
 * must fail (`CI=true` or `REQUIRE_SYSTEM_TOOLS=1`), which throws instead.
 *
 * Call it from a `function` (not an arrow) so mocha's `this` is the test: `await requireSystemTool(this, 'ffmpeg')`.
 * `settings` default to the environment's (CI, REQUIRE_SYSTEM_TOOLS, CHROMIUM_PATH).
 */
export async function requireSystemTool(
  test: { skip(): void },
  tool: SystemTool,
  settings: Pick<ReturnType<typeof testSettings>, 'chromiumPath' | 'requireSystemTools'> = testSettings(),
): Promise<string> {
  const { chromiumPath, requireSystemTools } = settings;
  const check = tools(chromiumPath)[tool];
  const key = `${tool}:${check.command}`;
  let present = checked.get(key);
  if (present === undefined) {
    present = check.present();
    checked.set(key, present);
  }
  if (await present) return check.command;
  if (requireSystemTools) {
    throw new Error(`${check.missing}: CI (or REQUIRE_SYSTEM_TOOLS) refuses to skip the tests that need it`);
  }
  if (!noticed.has(key)) {
    noticed.add(key);
    process.stderr.write(`skipped: ${check.missing}\n`);
  }
  test.skip();
  return check.command; // not reached: skip() throws mocha's Pending
}
