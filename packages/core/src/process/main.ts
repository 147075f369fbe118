import { ConfigError } from '../config/load.js';

/**
 * The body of a service's `main.ts`: starts it, stops it cleanly on SIGINT/SIGTERM (exit 0), and
 * on a start failure prints the reason — the list of problems for a bad configuration — and exits 1.
 */
export async function runMain(start: () => Promise<{ stop(): Promise<void> }>): Promise<void> {
  let service: { stop(): Promise<void> };
  try {
    service = await start();
  } catch (error) {
    process.stderr.write(
      error instanceof ConfigError
        ? `${error.message}\n`
        : `Could not start: ${String((error as Error)?.stack ?? error)}\n`,
    );
    process.exit(1);
  }
  let stopping = false;
  const shutdown = () => {
    if (stopping) return; // Ctrl-C reaches the whole process group: the launcher forwards it too
    stopping = true;
    service.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`Stopping failed: ${String((error as Error)?.stack ?? error)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
  // Started by a supervisor that holds our stdin open (the launcher): when it dies, even by SIGKILL,
  // the pipe closes and we stop too instead of living on as an orphan.
  if (process.argv.includes(EXIT_WITH_STDIN_FLAG)) {
    process.stdin.on('end', shutdown);
    process.stdin.on('error', shutdown);
    process.stdin.resume();
  }
}

/** The argument a supervisor passes so its child exits when the supervisor's end of stdin closes. */
export const EXIT_WITH_STDIN_FLAG = '--exit-with-stdin';
