import { expect } from 'chai';

export type Json = Record<string, unknown>;

export interface RestCall {
  method?: string;
  /** An access token, sent as `Authorization: Bearer`. */
  token?: string;
  /** A body sent as JSON. */
  json?: unknown;
  /** A body sent as is (a form, raw text). */
  body?: string | URLSearchParams;
  headers?: Record<string, string>;
}

export interface RestAnswer<T = Json> {
  status: number;
  body: T;
  headers: Headers;
}

/** One request to the REST API of the server at `url`, as a client sends it; the answer must be JSON. */
export async function rest<T = Json>(url: string, path: string, call: RestCall = {}): Promise<RestAnswer<T>> {
  const headers: Record<string, string> = { ...call.headers };
  if (call.token) headers.Authorization = `Bearer ${call.token}`;
  if (call.json !== undefined) headers['Content-Type'] = 'application/json';
  const response = await fetch(`${url}${path}`, {
    method: call.method ?? 'GET',
    headers,
    body: call.json !== undefined ? JSON.stringify(call.json) : call.body,
  });
  expect(response.headers.get('content-type'), `${path} answers JSON`).to.match(/^application\/json/);
  return { status: response.status, body: (await response.json()) as T, headers: response.headers };
}
