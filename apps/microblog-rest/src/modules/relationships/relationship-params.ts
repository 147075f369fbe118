import { z } from 'zod';
import { paramsObject } from '../../http/request-schema.js';
import { railsBoolean } from '../accounts/account-validation.js';
import type { FollowChoices, MuteChoices } from './relationship.types.js';

const flag = z.unknown().transform(railsBoolean).optional();

/** A list parameter as Rails reads it: `languages[]=en&languages[]=de`, a JSON array, or one value. */
const textList = z
  .unknown()
  .transform((value, ctx): string[] | undefined => {
    if (value === undefined || value === null) return undefined;
    const list = Array.isArray(value) ? value : typeof value === 'object' ? Object.values(value) : [value];
    if (!list.every((item) => typeof item === 'string')) {
      ctx.addIssue({ code: 'custom', message: 'is invalid' });
      return undefined;
    }
    return list as string[];
  })
  .optional();

/** ISO 639-1/3 codes as clients send them (`en`, `pt`, `fil`); anything else is refused. */
const LANGUAGE = /^[a-z]{2,3}$/;

/** POST /api/v1/accounts/:id/follow: `reblogs`, `notify`, `languages[]` (megalodon sends `reblog`). */
export const followParams = paramsObject({
  reblogs: flag,
  reblog: flag,
  notify: flag,
  languages: textList,
})
  .superRefine((body, ctx) => {
    if (body.languages?.some((language) => !LANGUAGE.test(language.toLowerCase()))) {
      ctx.addIssue({
        code: 'custom',
        message: 'is invalid',
        path: ['languages'],
        params: { label: 'Languages' },
      });
    }
  })
  .transform((body): FollowChoices => ({
    ...((body.reblogs ?? body.reblog) !== undefined ? { reblogs: (body.reblogs ?? body.reblog)! } : {}),
    ...(body.notify !== undefined ? { notify: body.notify } : {}),
    ...(body.languages !== undefined
      ? { languages: body.languages.map((language) => language.toLowerCase()) }
      : {}),
  }));

/** POST /api/v1/accounts/:id/mute: `notifications` (default true), `duration` in seconds (0: forever). */
export const muteParams = paramsObject({
  notifications: flag,
  duration: z
    .unknown()
    .transform((value, ctx) => {
      if (value === undefined || value === null || value === '') return 0;
      const n = typeof value === 'number' ? value : typeof value === 'string' ? Number(value.trim()) : NaN;
      if (!Number.isInteger(n) || n < 0 || n > 2 ** 31 - 1) {
        ctx.addIssue({ code: 'custom', message: 'is invalid', params: { label: 'Duration' } });
        return 0;
      }
      return n;
    })
    .optional(),
}).transform((body): MuteChoices => ({
  notifications: body.notifications ?? true,
  duration: body.duration ?? 0,
}));

/** `?id[]=1&id[]=2` (or `?id=1`): the ids in the order given. */
export const idsQuery = z
  .preprocess(
    (value) => (typeof value === 'object' && value !== null ? value : {}),
    z.object({ id: textList }),
  )
  .transform((query) => query.id ?? []);

/** `domain` of POST/DELETE /api/v1/domain_blocks (body, or query as some clients send it). */
export const domainParams = paramsObject({
  domain: z
    .unknown()
    .transform((value) => (typeof value === 'string' ? value : undefined))
    .optional(),
});

/** GET /api/v1/accounts/search: `q`, `limit` (40, at most 80), `offset`, `resolve`, `following`. */
export const accountSearchQuery = paramsObject({
  q: z
    .unknown()
    .transform((value) => (typeof value === 'string' ? value : ''))
    .optional(),
  limit: z
    .unknown()
    .transform((value) => {
      const n =
        typeof value === 'string' ? Number.parseInt(value, 10) : typeof value === 'number' ? value : NaN;
      return Number.isFinite(n) && n > 0 ? Math.min(n, 80) : 40;
    })
    .optional(),
  offset: z
    .unknown()
    .transform((value) => {
      const n =
        typeof value === 'string' ? Number.parseInt(value, 10) : typeof value === 'number' ? value : NaN;
      return Number.isFinite(n) && n > 0 ? n : 0;
    })
    .optional(),
  resolve: flag,
  following: flag,
});
