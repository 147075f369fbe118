import { z } from 'zod';
import { isRowId } from '@agora/db';
import { pageParams } from '../../http/link-pagination.js';
import { paramsObject } from '../../http/request-schema.js';
import { VALIDATION } from '../../http/validation-codes.js';
import { railsBoolean } from '../accounts/account-validation.js';
import {
  FILTER_ACTIONS,
  FILTER_CONTEXTS,
  type FilterAction,
  type FilterContext,
  type KeywordInput,
} from './filter.service.js';
import {
  GROUPABLE_TYPES,
  NOTIFICATION_TYPES,
  POLICY_VALUES,
  type NotificationPolicy,
  type NotificationSelection,
  type NotificationType,
  type PolicyValue,
} from './notification.types.js';

/** An array parameter (`types[]=a&types[]=b`, a JSON array) or one value; strings only. */
function stringList(value: unknown): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  const list = Array.isArray(value) ? value : typeof value === 'object' ? Object.values(value) : [value];
  return list.filter((item): item is string => typeof item === 'string');
}

/** Notification types asked for: the known ones kept, others ignored (Mastodon intersects them). */
const typeList = z
  .unknown()
  .transform((value) => {
    const list = stringList(value);
    if (list === undefined) return undefined;
    return list.filter((type): type is NotificationType =>
      (NOTIFICATION_TYPES as readonly string[]).includes(type),
    );
  })
  .optional();

const accountId = z
  .unknown()
  .transform((value) =>
    value === undefined || value === '' ? undefined : typeof value === 'string' ? value : '',
  )
  .optional();

const selectionFields = { types: typeList, exclude_types: typeList, account_id: accountId };

function toSelection(query: {
  types?: NotificationType[] | undefined;
  exclude_types?: NotificationType[] | undefined;
  account_id?: string | undefined;
}): NotificationSelection {
  return {
    types: query.types ?? null,
    excludeTypes: query.exclude_types ?? [],
    fromAccountId:
      query.account_id === undefined ? null : isRowId(query.account_id) ? query.account_id : false,
  };
}

/** The notifications limit (§2.5: 40, at most 80), with `types[]`, `exclude_types[]`, `account_id`. */
export const NOTIFICATION_PAGE = pageParams(40, 80);

/** GET /api/v1/notifications. */
export const listNotificationsQuery = z
  .preprocess(
    (value) => (typeof value === 'object' && value !== null ? value : {}),
    z.object(selectionFields),
  )
  .transform(toSelection);

/** GET /api/v2/notifications: also `grouped_types[]` (default favourite, reblog, follow). */
export const groupedNotificationsQuery = z
  .preprocess(
    (value) => (typeof value === 'object' && value !== null ? value : {}),
    z.object({ ...selectionFields, grouped_types: typeList }),
  )
  .transform((query) => ({
    selection: toSelection(query),
    groupedTypes: (query.grouped_types ?? GROUPABLE_TYPES).filter((type) => GROUPABLE_TYPES.includes(type)),
  }));

/** `unread_count`'s limit: 100 by default, at most 1000 (Mastodon). */
export const unreadCountQuery = z
  .preprocess(
    (value) => (typeof value === 'object' && value !== null ? value : {}),
    z.object({
      ...selectionFields,
      limit: z
        .unknown()
        .transform((value) => {
          const n =
            typeof value === 'string' || typeof value === 'number' ? Number.parseInt(String(value), 10) : NaN;
          return Number.isFinite(n) && n > 0 ? Math.min(n, 1000) : 100;
        })
        .optional(),
    }),
  )
  .transform((query) => ({ selection: toSelection(query), limit: query.limit ?? 100 }));

const policyValue = z
  .unknown()
  .transform((value, ctx): PolicyValue | undefined => {
    if (value === undefined || value === null || value === '') return undefined;
    if (typeof value === 'string' && (POLICY_VALUES as readonly string[]).includes(value))
      return value as PolicyValue;
    ctx.addIssue({ code: 'custom', message: VALIDATION.inclusion.message });
    return undefined;
  })
  .optional();

/** PATCH /api/v2/notifications/policy. */
export const policyParams = paramsObject({
  for_not_following: policyValue,
  for_not_followers: policyValue,
  for_new_accounts: policyValue,
  for_private_mentions: policyValue,
  for_limited_accounts: policyValue,
}).transform((body): Partial<NotificationPolicy> => {
  const patch: Partial<NotificationPolicy> = {};
  if (body.for_not_following) patch.forNotFollowing = body.for_not_following;
  if (body.for_not_followers) patch.forNotFollowers = body.for_not_followers;
  if (body.for_new_accounts) patch.forNewAccounts = body.for_new_accounts;
  if (body.for_private_mentions) patch.forPrivateMentions = body.for_private_mentions;
  if (body.for_limited_accounts) patch.forLimitedAccounts = body.for_limited_accounts;
  return patch;
});

/** PUT /api/v1/notifications/policy (4.3, deprecated): booleans, `true` meaning filter. */
export const v1PolicyParams = paramsObject({
  filter_not_following: z.unknown().transform(railsBoolean).optional(),
  filter_not_followers: z.unknown().transform(railsBoolean).optional(),
  filter_new_accounts: z.unknown().transform(railsBoolean).optional(),
  filter_private_mentions: z.unknown().transform(railsBoolean).optional(),
}).transform((body): Partial<NotificationPolicy> => {
  const value = (flag: boolean): PolicyValue => (flag ? 'filter' : 'accept');
  const patch: Partial<NotificationPolicy> = {};
  if (body.filter_not_following !== undefined) patch.forNotFollowing = value(body.filter_not_following);
  if (body.filter_not_followers !== undefined) patch.forNotFollowers = value(body.filter_not_followers);
  if (body.filter_new_accounts !== undefined) patch.forNewAccounts = value(body.filter_new_accounts);
  if (body.filter_private_mentions !== undefined)
    patch.forPrivateMentions = value(body.filter_private_mentions);
  return patch;
});

// Filters (v2, and the v1 phrases).

const text = z
  .unknown()
  .transform((value) =>
    typeof value === 'string' ? value : typeof value === 'number' ? String(value) : undefined,
  )
  .optional();

/** `context[]`: known contexts only; an unknown one is Rails' inclusion error. */
const contextList = z
  .unknown()
  .transform((value, ctx): FilterContext[] | undefined => {
    const list = stringList(value);
    if (list === undefined) return undefined;
    const unknown = list.filter((item) => !(FILTER_CONTEXTS as readonly string[]).includes(item));
    if (unknown.length > 0) {
      ctx.addIssue({ code: 'custom', message: 'None or invalid context supplied' });
      return undefined;
    }
    return [...new Set(list)] as FilterContext[];
  })
  .optional();

const filterAction = z
  .unknown()
  .transform((value, ctx): FilterAction | undefined => {
    if (value === undefined || value === null || value === '') return undefined;
    if (typeof value === 'string' && (FILTER_ACTIONS as readonly string[]).includes(value))
      return value as FilterAction;
    ctx.addIssue({ code: 'custom', message: VALIDATION.inclusion.message });
    return undefined;
  })
  .optional();

/** `expires_in`: seconds; blank or absent is "never" on create (null), a non-number is refused. */
const expiresIn = z
  .unknown()
  .transform((value, ctx): number | null | undefined => {
    if (value === undefined) return undefined;
    if (value === null || value === '') return null;
    const n = typeof value === 'number' ? value : typeof value === 'string' ? Number(value) : NaN;
    if (!Number.isInteger(n) || n <= 0 || n > 2 ** 31 - 1) {
      ctx.addIssue({ code: 'custom', message: VALIDATION.invalid.message });
      return undefined;
    }
    return n;
  })
  .optional();

const flag = z.unknown().transform(railsBoolean).optional();

/** `keywords_attributes[]`: [{keyword, whole_word, id, _destroy}], as an array or a Rails hash. */
const keywordsAttributes = z
  .unknown()
  .transform((value, ctx): KeywordInput[] | undefined => {
    if (value === undefined || value === null) return undefined;
    const list = Array.isArray(value) ? value : typeof value === 'object' ? Object.values(value) : null;
    if (list === null) {
      ctx.addIssue({ code: 'custom', message: VALIDATION.invalid.message });
      return undefined;
    }
    return list.flatMap((item: unknown) => {
      if (typeof item !== 'object' || item === null) return [];
      const entry = item as Record<string, unknown>;
      const id = entry.id === undefined || entry.id === '' ? undefined : String(entry.id as string);
      return [
        {
          id,
          keyword: typeof entry.keyword === 'string' ? entry.keyword : undefined,
          wholeWord: railsBoolean(entry.whole_word),
          destroy: railsBoolean(entry._destroy) ?? false,
        },
      ];
    });
  })
  .optional();

/** POST and PUT /api/v2/filters. */
export const filterParams = paramsObject({
  title: text,
  context: contextList,
  filter_action: filterAction,
  expires_in: expiresIn,
  keywords_attributes: keywordsAttributes,
});

/** POST /api/v2/filters/:id/keywords, PUT /api/v2/filters/keywords/:id. */
export const keywordParams = paramsObject({ keyword: text, whole_word: flag });

/** POST /api/v2/filters/:id/statuses. */
export const filterStatusParams = paramsObject({ status_id: text });

/** POST and PUT /api/v1/filters: one phrase. */
export const v1FilterParams = paramsObject({
  phrase: text,
  context: contextList,
  irreversible: flag,
  whole_word: flag,
  expires_in: expiresIn,
});
