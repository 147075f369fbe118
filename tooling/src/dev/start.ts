// `npm start`: both services and their PostgreSQL, stopped cleanly with Ctrl-C.
import { ConfigError, processEnv } from '@agora/core';
import { launch } from './launcher.js';

const print = (line: string) => process.stdout.write(`${line}\n`);

try {
  const launcher = await launch(processEnv(), print);
  print('');
  for (const { entry, config } of launcher.services) {
    print(`${entry.label} is up:`);
    for (const line of entry.landing(config)) print(`  ${line}`);
  }
  print('\nPress Ctrl-C to stop.');
  let stopping = false;
  const shutdown = () => {
    if (stopping) return; // Ctrl-C reaches every process of the group, and npm forwards it once more
    stopping = true;
    print('Stopping…');
    void launcher.stop();
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
  process.exitCode = await launcher.finished;
} catch (error) {
  process.stderr.write(
    `${error instanceof ConfigError ? error.message : `Could not start: ${(error as Error).message}`}\n`,
  );
  process.exitCode = 1;
}
