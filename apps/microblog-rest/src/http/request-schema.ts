import type { Request, RequestHandler, Response } from 'express';
import { z } from 'zod';
import { BadInput, type FieldErrors } from '@agora/core';

/** What a route reads from the request, each part declared by a zod schema. */
export interface RequestSchemas {
  params?: z.ZodType;
  query?: z.ZodType;
  body?: z.ZodType;
}

type Parsed<T> = T extends z.ZodType ? z.output<T> : undefined;

/** The parsed parts of a request, typed by the route's schemas. */
export interface RequestInput<S extends RequestSchemas> {
  params: Parsed<S['params']>;
  query: Parsed<S['query']>;
  body: Parsed<S['body']>;
}

/** Turns a schema failure into the error the route answers (the OAuth endpoints answer their own). */
export type SchemaFailure = (error: z.ZodError) => Error;

/**
 * A route handler that first parses its params, query and body with the route's schemas. A failure
 * is thrown as `BadInput` with per-field details, which `http/errors.ts` (the one mapping) answers
 * as Mastodon's 422 `{"error", "details"}`; `failure` replaces that for another protocol.
 */
export function validated<S extends RequestSchemas>(
  schemas: S,
  handler: (input: RequestInput<S>, res: Response, req: Request) => unknown,
  failure: SchemaFailure = invalidRequest,
): RequestHandler {
  const parse = (schema: z.ZodType | undefined, value: unknown): unknown => {
    if (schema === undefined) return undefined;
    const result = schema.safeParse(value);
    if (!result.success) throw failure(result.error);
    return result.data;
  };
  return async (req, res) => {
    const input = {
      params: parse(schemas.params, req.params),
      query: parse(schemas.query, req.query),
      body: parse(schemas.body, req.body ?? {}),
    } as RequestInput<S>;
    await handler(input, res, req);
  };
}

/** Parses `value` with `schema` outside a route (a BadInput as `validated` throws it). */
export function parseInput<T extends z.ZodType>(schema: T, value: unknown): z.output<T> {
  const result = schema.safeParse(value);
  if (!result.success) throw invalidRequest(result.error);
  return result.data;
}

/**
 * Rails' "Validation failed: <label> <message>, …" with the problems per field. A field is the last
 * named segment of the issue's path; a custom issue may give the label Rails would show
 * (`params: { label: 'Fields' }`).
 */
export function invalidRequest(error: z.ZodError): BadInput {
  const fields: FieldErrors = {};
  const full: string[] = [];
  for (const issue of error.issues) {
    const field = issueField(issue.path);
    const label =
      issue.code === 'custom' && typeof issue.params?.label === 'string' ? issue.params.label : field;
    (fields[field] ??= []).push(issue.message);
    full.push(`${label} ${issue.message}`);
  }
  return new BadInput(`Validation failed: ${full.join(', ')}`, { fields });
}

/** The last string segment of an issue's path (`source.privacy` → `privacy`), or `base`. */
export function issueField(path: readonly PropertyKey[]): string {
  const named = path.filter((segment): segment is string => typeof segment === 'string');
  return named.at(-1) ?? 'base';
}

// Schemas of the parameter forms Mastodon clients send.

/** An object body; any other JSON (an array, a string) reads as no parameters, as a missing key does. */
export function paramsObject<T extends z.core.$ZodLooseShape>(shape: T) {
  return z.preprocess(
    (value) => (typeof value === 'object' && value !== null && !Array.isArray(value) ? value : {}),
    z.object(shape),
  );
}

/** A text parameter read leniently: anything but a string counts as absent. */
export const optionalText = z
  .unknown()
  .transform((value) => (typeof value === 'string' ? value : undefined))
  .optional();

/** A path segment (`:id`): Express always gives a string. */
export const pathParam = z.string();
