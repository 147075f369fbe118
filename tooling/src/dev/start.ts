// `npm start`: both services and their PostgreSQL, stopped cleanly with Ctrl-C.
import { ConfigError, processEnv } from '@agora/core';
import { launch, type Launcher } from './launcher.js';

const print = (line: string) => process.stdout.write(`${line}\n`);

// Handlers first: a Ctrl-C that arrives while (or right after) the services start must still stop them.
let launcher: Launcher | undefined;
let stopRequested = false;
const shutdown = () => {
  if (stopRequested) return; // Ctrl-C reaches every process of the group, and npm forwards it once more
  stopRequested = true;
  print('Stopping…');
  void launcher?.stop();
};
process.on('SIGINT', shutdown);
process.on('SIGTERM', shutdown);

try {
  launcher = await launch(processEnv(), print);
  if (stopRequested) {
    await launcher.stop();
  } else {
    print('');
    for (const { entry, config } of launcher.services) {
      print(`${entry.label} is up:`);
      for (const line of entry.landing(config)) print(`  ${line}`);
    }
    print('\nPress Ctrl-C to stop.');
  }
  process.exitCode = await launcher.finished;
} catch (error) {
  process.stderr.write(
    `${error instanceof ConfigError ? error.message : `Could not start: ${(error as Error).message}`}\n`,
  );
  process.exitCode = 1;
}
