import type { PushSubscriptionRow } from '../modules/push/push.service.js';
import type { PushAlerts, PushPolicy } from '../modules/push/push-params.js';

/** Mastodon's WebPushSubscription (4.4 `standard`): `server_key` is the instance's VAPID public key. */
export interface WebPushSubscriptionJson {
  id: string;
  endpoint: string;
  standard: boolean;
  alerts: PushAlerts;
  policy: PushPolicy;
  server_key: string;
}

export function serializeWebPushSubscription(
  row: PushSubscriptionRow,
  serverKey: string,
): WebPushSubscriptionJson {
  return {
    id: row.id,
    endpoint: row.endpoint,
    standard: row.standard,
    alerts: { ...row.alerts },
    policy: row.policy,
    server_key: serverKey,
  };
}
