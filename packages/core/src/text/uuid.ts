const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether `value` is a UUID in its usual text form (any case): what may name a stored row by UUID. */
export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value);
}
