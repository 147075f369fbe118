import { expect } from 'chai';
import type { Role } from '@agora/auth';
import { readMailFolder } from '@agora/core/testing';
import type { AppContext } from '../context.js';

export interface GraphQLResponse<T = Record<string, unknown>> {
  status: number;
  contentType: string | null;
  body: { data?: T | null; errors?: Array<Record<string, unknown>> };
  text: string;
}

/** Reads an answer of `POST /api` (JSON) into a GraphQLResponse. */
export async function readGraphQLResponse<T = Record<string, unknown>>(
  response: Response,
): Promise<GraphQLResponse<T>> {
  const text = await response.text();
  return {
    status: response.status,
    contentType: response.headers.get('content-type'),
    body: JSON.parse(text),
    text,
  };
}

/** POST /api with a JSON body, as the web client sends operations. */
export async function graphql<T = Record<string, unknown>>(
  url: string,
  query: string,
  options: {
    variables?: Record<string, unknown>;
    operationName?: string;
    headers?: Record<string, string>;
  } = {},
): Promise<GraphQLResponse<T>> {
  const response = await fetch(`${url}/api`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...options.headers },
    body: JSON.stringify({ query, variables: options.variables, operationName: options.operationName }),
  });
  return readGraphQLResponse<T>(response);
}

let nextIp = 0;

/**
 * A client address of its own for each call (TEST-NET-2, cycling), so per-IP rate limits never
 * couple tests; it counts only on servers started with TRUST_PROXY=true.
 */
export function freshIp(): string {
  return `198.51.100.${(nextIp++ % 250) + 1}`;
}

export interface GraphQLCall {
  /** An access token, sent as `Authorization: Bearer`. */
  token?: string;
  /** The caller's address (X-Forwarded-For); a fresh one by default. */
  ip?: string;
  variables?: object;
  headers?: Record<string, string>;
}

/** The headers of a call as a signed-in (or anonymous) web client from its own address sends them. */
export function callHeaders(
  call: Pick<GraphQLCall, 'token' | 'ip' | 'headers'> = {},
): Record<string, string> {
  const headers: Record<string, string> = { 'x-forwarded-for': call.ip ?? freshIp(), ...call.headers };
  if (call.token) headers.authorization = `Bearer ${call.token}`;
  return headers;
}

/** One operation against a test server, as a web client: its token, its own address. */
export async function gql<T = Record<string, unknown>>(
  server: { url: string },
  query: string,
  call: GraphQLCall = {},
): Promise<GraphQLResponse<T>> {
  return graphql<T>(server.url, query, {
    variables: call.variables as Record<string, unknown> | undefined,
    headers: callHeaders(call),
  });
}

/** The value of root field `field` of an answer without errors; `T` is the shape the query selects. */
export function ok<T = Record<string, unknown>>(response: GraphQLResponse, field: string): T {
  expect(response.body.errors, JSON.stringify(response.body.errors)).to.equal(undefined);
  return response.body.data![field] as T;
}

/** The first error of an answer that must have one. */
export function firstError(response: {
  body: { errors?: Array<Record<string, unknown>> };
}): Record<string, unknown> {
  expect(response.body.errors, 'an error').to.be.an('array').that.has.lengthOf.above(0);
  return response.body.errors![0]!;
}

/** The fields `keys` of the first error (each key present, even when the error lacks it). */
export function firstErrorFields<K extends string>(
  response: { body: { errors?: Array<Record<string, unknown>> } },
  ...keys: K[]
): Record<K, unknown> {
  const error = firstError(response);
  return Object.fromEntries(keys.map((key) => [key, error[key]])) as Record<K, unknown>;
}

/** The token of the last link `${publicUrl}/<path>/<token>` mailed to `email` (`validate`, `password-reset/…`). */
export async function mailedToken(
  server: { ctx: Pick<AppContext, 'config'> },
  email: string,
  path: string,
): Promise<string> {
  const mails = (await readMailFolder(server.ctx.config.mail.dir)).filter((mail) => mail.to.includes(email));
  const prefix = `${server.ctx.config.http.publicUrl}/${path}/`;
  for (const mail of mails.reverse()) {
    const line = mail.text.split('\n').find((text) => text.includes(prefix));
    if (line) return line.slice(line.indexOf(prefix) + prefix.length).split(/\s/)[0]!;
  }
  throw new Error(`no ${path} link mailed to ${email}`);
}

/**
 * A confirmed account created directly (as the admin tool does) and an access token for it, as
 * `login` would give. Without `password` it signs in through an external provider, so no password
 * hash is made at all.
 */
export async function signedInAccount(
  server: { ctx: Pick<AppContext, 'accounts' | 'sessions'> },
  email: string,
  options: { password?: string; role?: Role } = {},
): Promise<{ id: string; email: string; token: string }> {
  const { user } = await server.ctx.accounts.create({
    email,
    ...(options.password === undefined ? { provider: 'ldap' } : { password: options.password }),
    confirmed: true,
    role: options.role ?? 'USER',
  });
  const { accessToken } = await server.ctx.sessions.issuePair(user);
  return { id: user.id, email, token: accessToken };
}
