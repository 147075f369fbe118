import { z } from 'zod';

/** The environment a configuration is read from. Only this folder touches `process.env`. */
export type Env = Record<string, string | undefined>;

export class ConfigError extends Error {
  constructor(readonly issues: string[]) {
    super(`Invalid configuration:\n${issues.map((issue) => `  - ${issue}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** The process environment, read in one place. */
export function processEnv(): Env {
  return process.env;
}

/**
 * Parses `env` with a zod schema and reports every problem at once (not just the first), so a
 * misconfigured service fails at boot with the full list.
 */
export function loadConfig<S extends z.ZodType>(schema: S, env: Env = processEnv()): z.output<S> {
  // Empty strings mean "unset", as in most .env conventions.
  const cleaned: Env = {};
  for (const [key, value] of Object.entries(env)) {
    if (value !== undefined && value !== '') cleaned[key] = value;
  }
  const result = schema.safeParse(cleaned);
  if (!result.success) {
    throw new ConfigError(
      result.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`),
    );
  }
  return result.data;
}

// Small env-string parsers shared by every service schema.
const TRUE = new Set(['true', '1', 'yes', 'on']);
const FALSE = new Set(['false', '0', 'no', 'off']);

export function envBoolean(defaultValue: boolean) {
  return z
    .string()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined) return defaultValue;
      const lower = value.toLowerCase();
      if (TRUE.has(lower)) return true;
      if (FALSE.has(lower)) return false;
      ctx.addIssue({ code: 'custom', message: `expected a boolean (true/false), got "${value}"` });
      return z.NEVER;
    });
}

export function envInt(defaultValue: number, { min = 0, max = Number.MAX_SAFE_INTEGER } = {}) {
  return z.coerce.number().int().min(min).max(max).default(defaultValue);
}

export function envPort(defaultValue: number) {
  // Port 0 asks the OS for a free port (tests, benchmarks).
  return envInt(defaultValue, { min: 0, max: 65535 });
}

export function envList(defaultValue: string[]) {
  return z
    .string()
    .optional()
    .transform((value) =>
      value === undefined
        ? defaultValue
        : value
            .split(',')
            .map((item) => item.trim())
            .filter(Boolean),
    );
}

export function envUrl() {
  return z.string().refine((value) => URL.canParse(value), { message: 'expected a URL' });
}
