/**
 * The closed set of errors a service may raise on purpose. Each protocol maps them once:
 * GraphQL in the events app's formatError, REST in the microblog's error middleware.
 * Anything else that reaches a protocol edge is an Internal error (logged, never shown).
 */
export type ErrorKind =
  'NotFound' | 'BadInput' | 'Unauthenticated' | 'Forbidden' | 'Conflict' | 'RateLimited' | 'Internal';

/** Per-field problems: field name → messages (the reference's changeset error shape). */
export type FieldErrors = Record<string, string[]>;

export interface AppErrorOptions {
  /** Machine code for the API (e.g. GraphQL `code: "user_not_found"`); a default is derived from the kind. */
  code?: string;
  /** Field details for BadInput. */
  fields?: FieldErrors;
  /** The underlying error, for logs only. */
  cause?: unknown;
}

const defaultStatus: Record<ErrorKind, number> = {
  NotFound: 404,
  BadInput: 422,
  Unauthenticated: 401,
  Forbidden: 403,
  Conflict: 409,
  RateLimited: 429,
  Internal: 500,
};

const defaultCode: Record<ErrorKind, string> = {
  NotFound: 'not_found',
  BadInput: 'validation',
  Unauthenticated: 'unauthenticated',
  Forbidden: 'unauthorized',
  Conflict: 'conflict',
  RateLimited: 'rate_limited',
  Internal: 'unknown',
};

export abstract class AppError extends Error {
  abstract readonly kind: ErrorKind;
  readonly fields: FieldErrors | undefined;
  private readonly explicitCode: string | undefined;

  constructor(message: string, options: AppErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.fields = options.fields;
    this.explicitCode = options.code;
  }

  get status(): number {
    return defaultStatus[this.kind];
  }

  get code(): string {
    return this.explicitCode ?? defaultCode[this.kind];
  }
}

export class NotFound extends AppError {
  readonly kind = 'NotFound' as const;
  constructor(message = 'Resource not found', options?: AppErrorOptions) {
    super(message, options);
  }
}

export class BadInput extends AppError {
  readonly kind = 'BadInput' as const;
  /** 400 for malformed requests (bad JSON, wrong content type), 422 (default) for invalid values. */
  readonly malformed: boolean;
  constructor(message: string, options: AppErrorOptions & { malformed?: boolean } = {}) {
    super(message, options);
    this.malformed = options.malformed ?? false;
  }
  override get status(): number {
    return this.malformed ? 400 : 422;
  }

  /** One field is wrong, and its message is the error's (a changeset error with one key). */
  static field(field: string, message: string): BadInput {
    return new BadInput(message, { fields: { [field]: [message] } });
  }
}

export class Unauthenticated extends AppError {
  readonly kind = 'Unauthenticated' as const;
  constructor(message = 'You need to be logged in', options?: AppErrorOptions) {
    super(message, options);
  }
}

export class Forbidden extends AppError {
  readonly kind = 'Forbidden' as const;
  constructor(message = "You don't have permission to do this", options?: AppErrorOptions) {
    super(message, options);
  }
}

export class Conflict extends AppError {
  readonly kind = 'Conflict' as const;
}

export class RateLimited extends AppError {
  readonly kind = 'RateLimited' as const;
  /** Seconds until the caller may try again. */
  readonly retryAfterSeconds: number | undefined;
  constructor(message = 'Too many requests', options: AppErrorOptions & { retryAfterSeconds?: number } = {}) {
    super(message, options);
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}

export class Internal extends AppError {
  readonly kind = 'Internal' as const;
  constructor(message = 'Something went wrong', options?: AppErrorOptions) {
    super(message, options);
  }
}

export function isAppError(error: unknown): error is AppError {
  return error instanceof AppError;
}

/** The error a protocol edge should present for anything thrown: app errors as they are, others as Internal. */
export function toAppError(error: unknown): AppError {
  return isAppError(error) ? error : new Internal(undefined, { cause: error });
}
