import { BadInput } from '@agora/core';
import type { CredentialsPatch, RegistrationInput } from './account.service.js';
import type { FieldSource } from './account-settings.model.js';
import { railsBoolean, stringParam } from './account-validation.js';

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

/** POST /api/v1/accounts parameters. */
export function registrationInput(body: Params): RegistrationInput {
  const agreement = body.agreement;
  return {
    username: stringParam(body, 'username'),
    email: stringParam(body, 'email'),
    password: stringParam(body, 'password'),
    // The reference accepts only true, "true" and "1".
    agreement: agreement === true || agreement === 'true' || agreement === '1' || agreement === 1,
    locale: stringParam(body, 'locale'),
    reason: stringParam(body, 'reason'),
  };
}

/** PATCH update_credentials parameters (form, multipart or JSON). */
export function credentialsPatch(raw: Params): CredentialsPatch {
  const body = nestBracketKeys(raw);
  const source = isObject(body.source) ? body.source : {};
  const patch: CredentialsPatch = {
    displayName: stringParam(body, 'display_name'),
    note: stringParam(body, 'note'),
    locked: railsBoolean(body.locked),
    bot: railsBoolean(body.bot),
    discoverable: railsBoolean(body.discoverable),
    indexable: railsBoolean(body.indexable),
    hideCollections: railsBoolean(body.hide_collections),
    fields: body.fields_attributes === undefined ? undefined : fieldsAttributes(body.fields_attributes),
    privacy: stringParam(source, 'privacy'),
    sensitive: railsBoolean(source.sensitive),
    language: source.language === null ? null : stringParam(source, 'language'),
  };
  return Object.fromEntries(Object.entries(patch).filter(([, value]) => value !== undefined));
}

/** `fields_attributes` as an array of pairs, or Rails' index-keyed hash (`{"0": {...}}`) in index order. */
function fieldsAttributes(value: unknown): FieldSource[] {
  const invalid = () =>
    new BadInput('Validation failed: Fields is invalid', { fields: { fields_attributes: ['is invalid'] } });
  let entries: unknown[];
  if (Array.isArray(value)) entries = value;
  else if (isObject(value)) {
    entries = Object.entries(value)
      .filter(([key]) => /^\d+$/.test(key))
      .sort(([a], [b]) => Number(a) - Number(b))
      .map(([, entry]) => entry);
  } else if (value === '') entries = [];
  else throw invalid();
  return entries.map((entry) => {
    if (!isObject(entry)) throw invalid();
    return { name: stringParam(entry, 'name') ?? '', value: stringParam(entry, 'value') ?? '' };
  });
}
