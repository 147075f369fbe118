// `pnpm agora <command>`: the administrator's command-line tool. Help and unknown commands answer from
// here at once; a real command loads the services (commands.ts) only then.
import { parseArgs } from 'node:util';
import { cliOptions, commandNames, usage } from './usage.js';

function quickAnswer(argv: string[]): number | null {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, options: cliOptions });
  } catch {
    return null; // a bad option: commands.ts reports it as before
  }
  const [command] = parsed.positionals;
  if (parsed.values.help || command === 'help' || command === undefined) {
    process.stdout.write(`${usage}\n`);
    return command === undefined && !parsed.values.help ? 2 : 0;
  }
  if (!commandNames.has(command)) {
    process.stderr.write(`Unknown command "${command}".\n\n${usage}\n`);
    return 2;
  }
  return null;
}

// A reader that stops early (`pnpm agora --help | head`) is not an error of ours.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
  });
}

const argv = process.argv.slice(2);
process.exitCode = quickAnswer(argv) ?? (await (await import('./commands.js')).run(argv));
