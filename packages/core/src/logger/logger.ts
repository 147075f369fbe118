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
