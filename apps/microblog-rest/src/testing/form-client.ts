/** A browser without a browser, for tests of the sign-in pages: cookies, forms, no redirects followed. */
export class FormClient {
  readonly cookies = new Map<string, string>();

  constructor(private readonly base: string) {}

  async get(path: string): Promise<PageResponse> {
    return this.send(path, { method: 'GET' });
  }

  async post(path: string, form: Record<string, string>): Promise<PageResponse> {
    return this.send(path, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form).toString(),
    });
  }

  /** Submits the page's form whose action is `action`, with its hidden fields and `fields` on top. */
  async submit(
    page: PageResponse,
    action: string,
    fields: Record<string, string> = {},
  ): Promise<PageResponse> {
    return this.post(action, { ...formFields(page.body, action), ...fields });
  }

  private async send(path: string, init: RequestInit): Promise<PageResponse> {
    const cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const response = await fetch(new URL(path, this.base), {
      ...init,
      redirect: 'manual',
      headers: {
        ...(init.headers as Record<string, string> | undefined),
        ...(cookie ? { Cookie: cookie } : {}),
      },
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      if (value === '' || attributes.some((a) => a.trim().toLowerCase() === 'max-age=0'))
        this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return { status: response.status, headers: response.headers, body: await response.text() };
  }
}

export interface PageResponse {
  status: number;
  headers: Headers;
  body: string;
}

function unescape(value: string): string {
  return value
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

/** The hidden fields of the form posting to `action`. */
export function formFields(html: string, action: string): Record<string, string> {
  const start = html.indexOf(`action="${action}"`);
  if (start < 0) throw new Error(`no form posting to ${action}`);
  const form = html.slice(start, html.indexOf('</form>', start));
  const fields: Record<string, string> = {};
  for (const match of form.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)) {
    fields[unescape(match[1]!)] = unescape(match[2]!);
  }
  return fields;
}
