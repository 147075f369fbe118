import { BadInput, type FieldErrors } from '@agora/core';
import { sanitizeRemoteHtml } from '@agora/federation';
import type { AddressInput, EventInput } from './event.service.js';

/** The reference's length rules (its event changeset), plus our own cap on descriptions. */
export const EVENT_LIMITS = {
  title: { min: 3, max: 200 },
  onlineAddress: { min: 3, max: 2000 },
  phoneAddress: { min: 3, max: 200 },
  /** Ours: the reference has none; 100k characters is far beyond any real event page. */
  description: { max: 100_000 },
} as const;

export const CHECK_MESSAGES = {
  endsBeforeBegins: 'ends_on cannot be set before begins_on',
  negative: 'must be greater than or equal to 0',
  url: 'must be an http or https URL',
  timezone: 'is not a valid time zone',
  tooShort: (count: number) => `should be at least ${count} character(s)`,
  tooLong: (count: number) => `should be at most ${count} character(s)`,
} as const;

/**
 * Every rule of an event's values at once, as one BadInput with the reference's field names
 * (`options.<name>` for what it reports inside the options map). Nothing is written before this passes.
 */
export function checkEventInput(input: EventInput, beginsOn: Date, endsOn: Date | null): void {
  const errors: FieldErrors = {};
  const add = (field: string, message: string) => {
    (errors[field] ??= []).push(message);
  };
  const length = (field: string, value: string | null | undefined, min: number, max: number) => {
    if (value === null || value === undefined) return;
    const count = [...value].length;
    if (count < min) add(field, CHECK_MESSAGES.tooShort(min));
    if (count > max) add(field, CHECK_MESSAGES.tooLong(max));
  };
  const url = (field: string, value: unknown) => {
    if (typeof value === 'string' && value !== '' && !isWebUrl(value)) add(field, CHECK_MESSAGES.url);
  };

  length('title', input.title, EVENT_LIMITS.title.min, EVENT_LIMITS.title.max);
  length('description', input.description, 0, EVENT_LIMITS.description.max);
  length(
    'online_address',
    input.onlineAddress,
    EVENT_LIMITS.onlineAddress.min,
    EVENT_LIMITS.onlineAddress.max,
  );
  length('phone_address', input.phoneAddress, EVENT_LIMITS.phoneAddress.min, EVENT_LIMITS.phoneAddress.max);
  url('online_address', input.onlineAddress);
  url('external_participation_url', input.externalParticipationUrl);
  if (endsOn && endsOn.getTime() < beginsOn.getTime()) add('ends_on', CHECK_MESSAGES.endsBeforeBegins);

  const options = input.options ?? {};
  const capacity = options['maximumAttendeeCapacity'];
  if (typeof capacity === 'number' && capacity < 0)
    add('options.maximum_attendee_capacity', CHECK_MESSAGES.negative);
  for (const offer of listOf(options['offers'])) {
    if (typeof offer.price === 'number' && offer.price < 0) add('options.offers', CHECK_MESSAGES.negative);
    url('options.offers', offer.url);
  }
  for (const condition of listOf(options['participationConditions']))
    url('options.participation_conditions', condition.url);

  if (input.physicalAddress) checkAddress(input.physicalAddress, add, url);
  if (Object.keys(errors).length > 0) {
    throw new BadInput(Object.values(errors)[0]![0]!, { fields: errors });
  }
}

function checkAddress(
  address: AddressInput,
  add: (field: string, message: string) => void,
  url: (field: string, value: unknown) => void,
): void {
  url('physical_address.url', address.url);
  if (address.timezone && !isTimezone(address.timezone))
    add('physical_address.timezone', CHECK_MESSAGES.timezone);
}

/** The options as stored: rich-text values sanitized as the description is, the rest verbatim. */
export function sanitizedOptions(options: Record<string, unknown>): Record<string, unknown> {
  const result = { ...options };
  if (typeof result['program'] === 'string') result['program'] = sanitizeRemoteHtml(result['program']);
  if (Array.isArray(result['participationConditions'])) {
    result['participationConditions'] = listOf(result['participationConditions']).map((condition) =>
      typeof condition.content === 'string'
        ? { ...condition, content: sanitizeRemoteHtml(condition.content) }
        : condition,
    );
  }
  return result;
}

function listOf(value: unknown): Array<Record<string, unknown>> {
  return Array.isArray(value)
    ? value.filter((item): item is Record<string, unknown> => typeof item === 'object' && item !== null)
    : [];
}

/** Only http(s) links: a `javascript:` or `data:` URL would run in whoever opens it. */
export function isWebUrl(value: string): boolean {
  try {
    const parsed = new URL(value);
    return parsed.protocol === 'https:' || parsed.protocol === 'http:';
  } catch {
    return false;
  }
}

function isTimezone(value: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: value });
    return true;
  } catch {
    return false;
  }
}
