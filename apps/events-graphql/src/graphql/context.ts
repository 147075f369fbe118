import type { IncomingHttpHeaders } from 'node:http';
import type { AppContext } from '../context.js';

/** What every resolver receives. Created per operation, so it must stay cheap: derive lazily. */
export interface GraphQLContext {
  readonly app: AppContext;
  /** The caller's preferred locale (BCP 47), from Accept-Language; "en" by default. */
  readonly locale: string;
}

export class RequestContext implements GraphQLContext {
  private preferredLocale: string | undefined;

  constructor(
    readonly app: AppContext,
    private readonly headers: IncomingHttpHeaders,
  ) {}

  get locale(): string {
    this.preferredLocale ??= preferredLocale(this.headers['accept-language']);
    return this.preferredLocale;
  }
}

/** The highest-weighted valid language tag of an Accept-Language header. */
export function preferredLocale(header: string | undefined): string {
  if (!header) return 'en';
  let best = 'en';
  let bestWeight = 0;
  for (const part of header.split(',')) {
    const [tag = '', ...params] = part.trim().split(';');
    const q = params.find((param) => param.trim().startsWith('q='));
    const weight = q === undefined ? 1 : Number(q.trim().slice(2));
    if (tag === '*' || !(weight > bestWeight)) continue;
    try {
      const [canonical] = Intl.getCanonicalLocales(tag);
      if (canonical) {
        best = canonical;
        bestWeight = weight;
      }
    } catch {
      // Not a language tag: ignored.
    }
  }
  return best;
}
