import { z } from 'zod';
import { VALIDATION } from '../../http/validation-codes.js';

/** The alerts a subscription may ask for (Mastodon 4.3's `data[alerts][…]`). */
export const PUSH_ALERTS = [
  'mention',
  'status',
  'reblog',
  'follow',
  'follow_request',
  'favourite',
  'poll',
  'update',
  'admin.sign_up',
  'admin.report',
] as const;
export type PushAlert = (typeof PUSH_ALERTS)[number];
export type PushAlerts = Record<PushAlert, boolean>;

export const PUSH_POLICIES = ['all', 'followed', 'follower', 'none'] as const;
export type PushPolicy = (typeof PUSH_POLICIES)[number];

/** Rails' boolean casting, as Mastodon reads `data[alerts][mention]=true` from forms. */
const railsBoolean = z.unknown().transform((value) => {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') return value !== 0;
  if (typeof value === 'string') return !['', '0', 'f', 'false', 'off', 'F', 'FALSE', 'OFF'].includes(value);
  return false;
});

/**
 * `data`: `alerts` (nested, as JSON or bracketed form keys, or `admin.sign_up` flattened by qs into
 * `admin: {sign_up}`) and `policy`. Unknown alerts are ignored; an unknown policy is a 422.
 */
export const pushData = z
  .object({
    alerts: z.record(z.string(), z.unknown()).optional(),
    policy: z.enum(PUSH_POLICIES, { message: VALIDATION.invalid.message }).optional(),
  })
  .optional()
  .transform((data) => {
    const alerts = Object.fromEntries(PUSH_ALERTS.map((name) => [name, false])) as PushAlerts;
    const given = data?.alerts ?? {};
    for (const name of PUSH_ALERTS) {
      const [group, key] = name.split('.') as [string, string | undefined];
      const nested =
        key !== undefined ? (given[group] as Record<string, unknown> | undefined)?.[key] : undefined;
      const value = given[name] ?? nested;
      if (value !== undefined) alerts[name] = railsBoolean.parse(value);
    }
    return { alerts, policy: data?.policy };
  });

const base64url = z
  .string({ message: VALIDATION.blank.message })
  .trim()
  .regex(/^[A-Za-z0-9_\-+/]+=*$/, VALIDATION.invalid.message);

/** POST /api/v1/push/subscription: `subscription[endpoint]`, `subscription[keys][p256dh|auth]`, `subscription[standard]`. */
export const createPushParams = z.object({
  subscription: z.object(
    {
      endpoint: z
        .string({ message: VALIDATION.blank.message })
        .trim()
        .max(2048)
        .refine((value) => {
          try {
            const url = new URL(value);
            return (url.protocol === 'https:' || url.protocol === 'http:') && !url.username && !url.password;
          } catch {
            return false;
          }
        }, VALIDATION.invalid.message),
      keys: z.object(
        {
          p256dh: base64url.max(256).refine((key) => {
            const point = Buffer.from(key, 'base64url');
            return point.length === 65 && point[0] === 4;
          }, VALIDATION.invalid.message),
          auth: base64url
            .max(64)
            .refine((key) => Buffer.from(key, 'base64url').length === 16, VALIDATION.invalid.message),
        },
        { message: VALIDATION.blank.message },
      ),
      standard: railsBoolean.optional(),
    },
    { message: VALIDATION.blank.message },
  ),
  data: pushData,
  // masto.js sends the policy beside `data`; Mastodon reads `data[policy]`, which wins.
  policy: z.enum(PUSH_POLICIES, { message: VALIDATION.invalid.message }).optional(),
});

/** PUT /api/v1/push/subscription: only `data` changes (replaced whole, as Mastodon does). */
export const updatePushParams = z.object({
  data: pushData,
  policy: z.enum(PUSH_POLICIES, { message: VALIDATION.invalid.message }).optional(),
});
