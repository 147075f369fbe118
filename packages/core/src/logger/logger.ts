import { pino, type Logger as PinoLogger, type LevelWithSilent } from 'pino';

export type Logger = PinoLogger;
export type LogLevel = LevelWithSilent;

export interface LoggerOptions {
  level: LogLevel;
  /** Service or component name, printed on every line. */
  name: string;
}

/** Paths that must never reach a log line: credentials, tokens, codes. */
export const REDACTED_PATHS = [
  'password',
  '*.password',
  'token',
  '*.token',
  '*.accessToken',
  '*.refreshToken',
  '*.access_token',
  '*.client_secret',
  '*.code',
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  'headers.cookie',
  'config.db.url',
  'config.mail.smtpUrl',
];

export function createLogger(options: LoggerOptions): Logger {
  return pino({
    name: options.name,
    level: options.level,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    base: { service: options.name },
  });
}

/**
 * Runs what follows a committed change (federation, outbound protocols): its failure is logged with
 * `message`, never thrown to the request or job that committed the change.
 */
export async function logFailure(logger: Logger, message: string, run: () => Promise<void>): Promise<void> {
  try {
    await run();
  } catch (err) {
    logger.error({ err }, message);
  }
}
