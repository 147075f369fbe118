import { z } from 'zod';
import { paramsObject } from '../../http/request-schema.js';
import { VALIDATION } from '../../http/validation-codes.js';
import { railsBoolean } from '../accounts/account-validation.js';

/** A poll as POST /api/v1/statuses asks for it; the service checks it against the instance limits. */
export interface NewPoll {
  options: string[];
  /** Seconds from now; undefined when not given (refused as the reference does: no end is too far). */
  expiresIn: number | undefined;
  multiple: boolean;
  hideTotals: boolean;
}

const invalid = (ctx: z.RefinementCtx, path: string) =>
  ctx.addIssue({ code: 'custom', message: VALIDATION.invalid.message, path: [path] });

/**
 * `poll[options][]`, `poll[expires_in]`, `poll[multiple]`, `poll[hide_totals]`: a JSON object or the
 * form's bracketed keys (parsed into the same object); numbers may come as strings. A `poll` that is
 * not an object, options that are not texts, or an `expires_in` that is not a whole number are 422.
 */
export const pollParam = z
  .unknown()
  .transform((value, ctx): NewPoll | undefined => {
    if (value === undefined || value === null || value === '') return undefined;
    if (typeof value !== 'object' || Array.isArray(value)) {
      invalid(ctx, 'poll');
      return undefined;
    }
    const raw = value as Record<string, unknown>;
    const list = raw.options === undefined ? [] : Array.isArray(raw.options) ? raw.options : [raw.options];
    const options: string[] = [];
    for (const item of list) {
      if (typeof item === 'string') options.push(item);
      else if (typeof item === 'number') options.push(String(item));
      else {
        invalid(ctx, 'options');
        return undefined;
      }
    }
    let expiresIn: number | undefined;
    if (raw.expires_in !== undefined && raw.expires_in !== null && raw.expires_in !== '') {
      const n = typeof raw.expires_in === 'number' ? raw.expires_in : Number(String(raw.expires_in).trim());
      if (typeof raw.expires_in === 'object' || !Number.isSafeInteger(n)) {
        invalid(ctx, 'expires_in');
        return undefined;
      }
      expiresIn = n;
    }
    return {
      options,
      expiresIn,
      multiple: railsBoolean(raw.multiple) ?? false,
      hideTotals: railsBoolean(raw.hide_totals) ?? false,
    };
  })
  .optional();

/** POST /api/v1/polls/:id/votes: `choices[]`, indexes of options (numbers or their strings). */
export const voteParams = paramsObject({
  choices: z.unknown().transform((value, ctx): number[] => {
    const list = value === undefined || value === null ? [] : Array.isArray(value) ? value : [value];
    const out: number[] = [];
    for (const item of list) {
      const n =
        typeof item === 'number'
          ? item
          : typeof item === 'string' && /^\s*-?\d+\s*$/.test(item)
            ? Number(item)
            : NaN;
      if (!Number.isSafeInteger(n)) {
        ctx.addIssue({ code: 'custom', message: VALIDATION.invalid.message });
        return [];
      }
      out.push(n);
    }
    if (out.length === 0) ctx.addIssue({ code: 'custom', message: VALIDATION.blank.message });
    return out;
  }),
});
