import { z } from 'zod';
import { paramsObject, parseInput } from '../../http/request-schema.js';
import type { CredentialsPatch, RegistrationInput } from './account.service.js';
import type { FieldSource } from './account-settings.model.js';
import { railsBoolean, VALIDATION } from './account-validation.js';

type Params = Record<string, unknown>;

/**
 * Rails-style bracketed keys (`fields_attributes[0][name]`, `source[privacy]`) as nested objects.
 * Multipart bodies arrive flat; urlencoded ones are already nested by qs and pass through.
 */
export function nestBracketKeys(body: Params): Params {
  const nested: Params = {};
  for (const [key, value] of Object.entries(body)) {
    const match = /^([^[\]]+)((?:\[[^[\]]*\])+)$/.exec(key);
    if (!match) {
      nested[key] = value;
      continue;
    }
    const path = [match[1] ?? '', ...[...(match[2] ?? '').matchAll(/\[([^[\]]*)\]/g)].map((m) => m[1] ?? '')];
    let target = nested;
    for (const [index, segment] of path.entries()) {
      if (segment === '__proto__' || segment === 'constructor' || segment === 'prototype') break;
      if (index === path.length - 1) {
        target[segment] = value;
        break;
      }
      const next = target[segment];
      target = (target[segment] = isObject(next) ? next : {}) as Params;
    }
  }
  return nested;
}

function isObject(value: unknown): value is Params {
  return typeof value === 'object' && value !== null;
}

/** A Rails string parameter: absent, or a string (numbers and booleans as text); anything else is invalid. */
function railsText(value: unknown, ctx: z.RefinementCtx, path: PropertyKey[] = []): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  ctx.addIssue({ code: 'custom', message: VALIDATION.invalid.message, path });
  return undefined;
}

// Optional: zod 4 refuses a key whose schema outputs undefined unless the schema says so.
const text = z
  .unknown()
  .transform((value, ctx) => railsText(value, ctx))
  .optional();
const flag = z.unknown().transform(railsBoolean).optional();

/** POST /api/v1/accounts parameters. */
export const registrationParams = paramsObject({
  username: text,
  email: text,
  password: text,
  // The reference accepts only true, "true" and "1".
  agreement: z
    .unknown()
    .transform((value) => value === true || value === 'true' || value === '1' || value === 1),
  locale: text,
  reason: text,
}).transform((body): RegistrationInput => ({
  username: body.username,
  email: body.email,
  password: body.password,
  agreement: body.agreement,
  locale: body.locale,
  reason: body.reason,
}));

/** `fields_attributes` as an array of pairs, or Rails' index-keyed hash (`{"0": {...}}`) in index order. */
const fieldsAttributes = z
  .unknown()
  .transform((value, ctx): FieldSource[] | undefined => {
    if (value === undefined) return undefined;
    const invalid = () => {
      ctx.addIssue({ code: 'custom', message: VALIDATION.invalid.message, params: { label: 'Fields' } });
      return undefined;
    };
    let entries: unknown[];
    if (Array.isArray(value)) entries = value;
    else if (isObject(value)) {
      entries = Object.entries(value)
        .filter(([key]) => /^\d+$/.test(key))
        .sort(([a], [b]) => Number(a) - Number(b))
        .map(([, entry]) => entry);
    } else if (value === '') entries = [];
    else return invalid();
    const fields: FieldSource[] = [];
    for (const [index, entry] of entries.entries()) {
      if (!isObject(entry)) return invalid();
      fields.push({
        name: railsText(entry.name, ctx, [index, 'name']) ?? '',
        value: railsText(entry.value, ctx, [index, 'value']) ?? '',
      });
    }
    return fields;
  })
  .optional();

/**
 * `filtered_languages[]` (the seed's user setting; not a Mastodon parameter): a list, Rails'
 * index-keyed hash, one code, or `""` to clear.
 */
const languageList = z
  .unknown()
  .transform((value, ctx): string[] | undefined => {
    if (value === undefined || value === null) return undefined;
    if (value === '') return [];
    const list = Array.isArray(value) ? value : isObject(value) ? Object.values(value) : [value];
    if (!list.every((item) => typeof item === 'string')) {
      ctx.addIssue({
        code: 'custom',
        message: VALIDATION.invalid.message,
        params: { label: 'Filtered languages' },
      });
      return undefined;
    }
    return (list as string[]).filter((item) => item !== '');
  })
  .optional();

/** PATCH update_credentials parameters (form, multipart or JSON; bracketed keys nested first). */
export const credentialsParams = z
  .preprocess(
    (raw) => nestBracketKeys(isObject(raw) && !Array.isArray(raw) ? raw : {}),
    z.object({
      display_name: text,
      note: text,
      locked: flag,
      bot: flag,
      discoverable: flag,
      indexable: flag,
      hide_collections: flag,
      fields_attributes: fieldsAttributes,
      filtered_languages: languageList,
      source: paramsObject({
        privacy: text,
        sensitive: flag,
        language: z
          .unknown()
          .transform((value, ctx) => (value === null ? null : railsText(value, ctx)))
          .optional(),
      }),
    }),
  )
  .transform((body): CredentialsPatch => {
    const patch: CredentialsPatch = {
      displayName: body.display_name,
      note: body.note,
      locked: body.locked,
      bot: body.bot,
      discoverable: body.discoverable,
      indexable: body.indexable,
      hideCollections: body.hide_collections,
      fields: body.fields_attributes,
      filteredLanguages: body.filtered_languages,
      privacy: body.source.privacy,
      sensitive: body.source.sensitive,
      language: body.source.language,
    };
    return Object.fromEntries(Object.entries(patch).filter(([, value]) => value !== undefined));
  });

/** The update_credentials patch of a raw body, or the 422 its schema gives. */
export function credentialsPatch(raw: Params): CredentialsPatch {
  return parseInput(credentialsParams, raw);
}
