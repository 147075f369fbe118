import { z } from 'zod';
import { paramsObject } from '../../http/request-schema.js';
import { VALIDATION } from '../../http/validation-codes.js';
import { railsBoolean } from '../accounts/account-validation.js';
import { REPLIES_POLICIES, type RepliesPolicy } from './list.service.js';

/** `title`: a text (a number is its text); blank is absent, anything else 422. */
const title = z
  .unknown()
  .transform((value, ctx): string | undefined => {
    if (value === undefined || value === null) return undefined;
    if (typeof value === 'number') return String(value);
    if (typeof value === 'string') return value.trim() === '' ? '' : value;
    ctx.addIssue({ code: 'custom', message: VALIDATION.invalid.message, params: { label: 'Title' } });
    return undefined;
  })
  .optional();

/** `replies_policy`: followed, list or none; else Rails' inclusion error. */
const repliesPolicy = z
  .unknown()
  .transform((value, ctx): RepliesPolicy | undefined => {
    if (value === undefined || value === null || value === '') return undefined;
    if (typeof value === 'string' && (REPLIES_POLICIES as readonly string[]).includes(value)) {
      return value as RepliesPolicy;
    }
    ctx.addIssue({
      code: 'custom',
      message: VALIDATION.inclusion.message,
      params: { label: 'Replies policy' },
    });
    return undefined;
  })
  .optional();

const flag = z.unknown().transform(railsBoolean).optional();

/** POST /api/v1/lists: a title is required. */
export const createListParams = paramsObject({
  title,
  replies_policy: repliesPolicy,
  exclusive: flag,
}).superRefine((body, ctx) => {
  if (body.title === undefined || body.title === '') {
    ctx.addIssue({
      code: 'custom',
      message: VALIDATION.blank.message,
      path: ['title'],
      params: { label: 'Title' },
    });
  }
});

/** PUT /api/v1/lists/:id: what is given changes; a blank title is refused. */
export const updateListParams = paramsObject({
  title,
  replies_policy: repliesPolicy,
  exclusive: flag,
}).superRefine((body, ctx) => {
  if (body.title === '') {
    ctx.addIssue({
      code: 'custom',
      message: VALIDATION.blank.message,
      path: ['title'],
      params: { label: 'Title' },
    });
  }
});

/** `account_ids[]`: ids as texts (numbers accepted); required. */
export const accountIdsParams = paramsObject({
  account_ids: z.unknown().transform((value, ctx): string[] => {
    const list = value === undefined || value === null ? [] : Array.isArray(value) ? value : [value];
    const out: string[] = [];
    for (const item of list) {
      if (typeof item === 'string' || typeof item === 'number') out.push(String(item));
      else {
        ctx.addIssue({ code: 'custom', message: VALIDATION.invalid.message });
        return [];
      }
    }
    if (out.length === 0) ctx.addIssue({ code: 'custom', message: VALIDATION.blank.message });
    return out;
  }),
});
