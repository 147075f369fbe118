/**
 * Why an outgoing request failed. These stay inside the server (the delivery queue reads
 * `retryable`); a protocol edge maps them to one of the closed AppErrors. Messages never carry
 * socket error text or resolved addresses, so they are safe to log and to wrap.
 */
export abstract class FetchError extends Error {
  abstract readonly code: string;
  /** Whether trying the same request later may succeed. */
  abstract readonly retryable: boolean;

  constructor(
    message: string,
    /** The URL of the hop that failed (after redirects). */
    readonly url: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export type RefusalReason =
  'bad_url' | 'scheme' | 'hidden_service' | 'blocked_host' | 'private_address' | 'no_address';

const refusalText: Record<RefusalReason, string> = {
  bad_url: 'not a valid URL',
  scheme: 'only http and https are fetched',
  hidden_service: '.onion and .i2p hosts are not fetched',
  blocked_host: 'the domain is blocked',
  private_address: 'the host is a private or special-use address',
  no_address: 'the host has no address',
};

/** The target is not allowed (SSRF guard, domain block, scheme); retrying cannot help. */
export class FetchRefusedError extends FetchError {
  readonly code = 'refused' as const;
  readonly retryable = false;
  constructor(
    readonly reason: RefusalReason,
    url: string,
  ) {
    super(`Refused to fetch ${safeUrl(url)}: ${refusalText[reason]}`, url);
  }
}

/** The whole exchange (DNS, connect, headers, body, redirects) outlived its time budget. */
export class FetchTimeoutError extends FetchError {
  readonly code = 'timeout' as const;
  readonly retryable = true;
  constructor(
    readonly timeoutMs: number,
    url: string,
  ) {
    super(`Fetching ${safeUrl(url)} took longer than ${timeoutMs} ms`, url);
  }
}

/** The body (declared or received) is larger than the cap; the transfer was cut. */
export class FetchTooLargeError extends FetchError {
  readonly code = 'too_large' as const;
  readonly retryable = false;
  constructor(
    readonly maxBodyBytes: number,
    url: string,
  ) {
    super(`Response from ${safeUrl(url)} is larger than ${maxBodyBytes} bytes`, url);
  }
}

/** Too many redirects, or a redirect without a usable Location. */
export class FetchRedirectError extends FetchError {
  readonly code = 'redirect' as const;
  readonly retryable = false;
  constructor(
    readonly reason: 'too_many' | 'bad_location',
    url: string,
  ) {
    super(
      reason === 'too_many'
        ? `Too many redirects fetching ${safeUrl(url)}`
        : `Redirect from ${safeUrl(url)} has an unusable Location`,
      url,
    );
  }
}

/** DNS or connection failure; `syscallCode` (e.g. ECONNREFUSED) is kept for logs, not the text. */
export class FetchNetworkError extends FetchError {
  readonly code = 'network' as const;
  readonly retryable = true;
  constructor(
    readonly syscallCode: string,
    url: string,
  ) {
    super(`Network error fetching ${safeUrl(url)} (${syscallCode})`, url);
  }
}

/** A non-2xx answer, raised by `assertOk`; 5xx, 408 and 429 are worth retrying. */
export class FetchHttpError extends FetchError {
  readonly code = 'http' as const;
  readonly retryable: boolean;
  constructor(
    readonly status: number,
    url: string,
  ) {
    super(`${safeUrl(url)} answered HTTP ${status}`, url);
    this.retryable = status >= 500 || status === 408 || status === 429;
  }
}

/** The body is not what the caller asked for (e.g. not JSON). */
export class FetchBadResponseError extends FetchError {
  readonly code = 'bad_response' as const;
  readonly retryable = false;
}

// User info and overly long URLs stay out of messages.
function safeUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    const text = parsed.toString();
    return text.length > 200 ? `${text.slice(0, 200)}…` : text;
  } catch {
    return '(invalid URL)';
  }
}
