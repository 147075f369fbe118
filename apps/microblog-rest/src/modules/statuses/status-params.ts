import { z } from 'zod';
import { paramsObject } from '../../http/request-schema.js';
import { VALIDATION } from '../../http/validation-codes.js';
import { railsBoolean } from '../accounts/account-validation.js';
import { pollParam } from '../polls/poll-params.js';
import { VISIBILITIES, type Visibility } from './status.model.js';

/** A Rails text parameter: a string, or a number sent as JSON; absent otherwise. */
const text = z
  .unknown()
  .transform((value, ctx) => {
    if (value === undefined || value === null) return undefined;
    if (typeof value === 'string') return value;
    if (typeof value === 'number' || typeof value === 'boolean') return String(value);
    ctx.addIssue({ code: 'custom', message: VALIDATION.invalid.message });
    return undefined;
  })
  .optional();

const flag = z.unknown().transform(railsBoolean).optional();

/** `visibility`: one of the four, else Rails' inclusion error (422). */
const visibility = z
  .unknown()
  .transform((value, ctx): Visibility | undefined => {
    if (value === undefined || value === null || value === '') return undefined;
    if (typeof value === 'string' && (VISIBILITIES as readonly string[]).includes(value))
      return value as Visibility;
    ctx.addIssue({ code: 'custom', message: VALIDATION.inclusion.message });
    return undefined;
  })
  .optional();

/** `media_ids[]` as an array (form or JSON) or one id; ids as strings. */
const ids = z
  .unknown()
  .transform((value, ctx): string[] | undefined => {
    if (value === undefined || value === null) return undefined;
    const list = Array.isArray(value) ? value : [value];
    const out: string[] = [];
    for (const item of list) {
      if (typeof item === 'string' || typeof item === 'number') out.push(String(item));
      else {
        ctx.addIssue({ code: 'custom', message: VALIDATION.invalid.message });
        return undefined;
      }
    }
    return out.filter((id) => id !== '');
  })
  .optional();

/** ISO 639-1 (or a 639-3 code), as the reference accepts; blank is absent. */
const language = z
  .unknown()
  .transform((value, ctx) => {
    if (value === undefined || value === null || value === '') return undefined;
    if (typeof value === 'string' && /^[a-z]{2,3}(-[A-Za-z0-9]{2,8})?$/.test(value)) return value;
    ctx.addIssue({ code: 'custom', message: VALIDATION.inclusion.message });
    return undefined;
  })
  .optional();

/** `scheduled_at`: an ISO 8601 time (blank is absent); anything else is 422. */
export const scheduledAt = z
  .unknown()
  .transform((value, ctx): Date | undefined => {
    if (value === undefined || value === null || value === '') return undefined;
    const time = typeof value === 'string' && /^\d{4}-\d{2}-\d{2}/.test(value) ? Date.parse(value) : NaN;
    if (Number.isNaN(time)) {
      ctx.addIssue({ code: 'custom', message: VALIDATION.invalid.message });
      return undefined;
    }
    return new Date(time);
  })
  .optional();

/** POST /api/v1/statuses (and the early POST /api/statuses). */
export const createStatusParams = paramsObject({
  status: text,
  media_ids: ids,
  in_reply_to_id: text,
  sensitive: flag,
  spoiler_text: text,
  visibility,
  language,
  poll: pollParam,
  scheduled_at: scheduledAt,
});

/** PUT /api/v1/statuses/:id. */
export const editStatusParams = paramsObject({
  status: text,
  media_ids: ids,
  sensitive: flag,
  spoiler_text: text,
  language,
  poll: pollParam,
});

/** POST /reblog. */
export const reblogParams = paramsObject({ visibility });
