import type { NotificationView } from '../modules/notifications/views/notification.view.js';
import type { NotificationGroupRow } from '../modules/notifications/notification.service.js';
import type { NotificationPolicy } from '../modules/notifications/notification.types.js';
import { serializeAccount, type AccountJson } from './account.js';
import { serializeFilterResult } from './filter.js';
import { serializeStatus, type StatusJson, type StatusJsonContext } from './status.js';

/** Mastodon's Notification entity (§2.3): every attribute present, `null` where it has none. */
export interface NotificationJson {
  id: string;
  type: string;
  created_at: string;
  group_key: string;
  account: AccountJson;
  status: StatusJson | null;
  report: null;
  event: null;
  moderation_warning: null;
}

/** Mastodon 4.3's NotificationGroup (v2 grouped notifications). */
export interface NotificationGroupJson {
  group_key: string;
  notifications_count: number;
  type: string;
  most_recent_notification_id: string;
  page_min_id: string;
  page_max_id: string;
  latest_page_notification_at: string;
  sample_account_ids: string[];
  status_id: string | null;
  report: null;
  event: null;
  moderation_warning: null;
}

/** Mastodon 4.3's GroupedNotificationsResults. */
export interface GroupedNotificationsJson {
  accounts: AccountJson[];
  statuses: StatusJson[];
  notification_groups: NotificationGroupJson[];
}

/** Mastodon's NotificationPolicy (v2, 4.3) with the counts of filtered notifications (none are held). */
export interface NotificationPolicyJson {
  for_not_following: string;
  for_not_followers: string;
  for_new_accounts: string;
  for_private_mentions: string;
  for_limited_accounts: string;
  summary: { pending_requests_count: number; pending_notifications_count: number };
}

/** Mastodon's v1 NotificationPolicy (4.3, deprecated): the same choices as booleans. */
export interface V1NotificationPolicyJson {
  filter_not_following: boolean;
  filter_not_followers: boolean;
  filter_new_accounts: boolean;
  filter_private_mentions: boolean;
  summary: { pending_requests_count: number; pending_notifications_count: number };
}

/** The status of a notification, with the viewer's filter results. */
function notificationStatus(view: NotificationView, context: StatusJsonContext): StatusJson | null {
  if (view.status === null) return null;
  return serializeStatus(view.status, context, { filtered: view.filtered.map(serializeFilterResult) });
}

export function serializeNotification(view: NotificationView, context: StatusJsonContext): NotificationJson {
  const { row } = view;
  return {
    id: row.id,
    type: row.type,
    created_at: row.createdAt.toISOString(),
    group_key: row.groupKey ?? `ungrouped-${row.id}`,
    account: serializeAccount(view.account, context.publicUrl),
    status: notificationStatus(view, context),
    report: null,
    event: null,
    moderation_warning: null,
  };
}

export function serializeNotificationGroup(group: NotificationGroupRow): NotificationGroupJson {
  return {
    group_key: group.groupKey,
    notifications_count: group.count,
    type: group.type,
    most_recent_notification_id: group.mostRecentId,
    page_min_id: group.pageMinId,
    page_max_id: group.pageMaxId,
    latest_page_notification_at: group.latestAt.toISOString(),
    sample_account_ids: group.sampleAccountIds,
    status_id: group.statusId,
    report: null,
    event: null,
    moderation_warning: null,
  };
}

/** The groups with the accounts and statuses they name, each once. */
export function serializeGroupedNotifications(
  groups: NotificationGroupRow[],
  views: NotificationView[],
  accounts: NotificationView['account'][],
  context: StatusJsonContext,
): GroupedNotificationsJson {
  const statuses = new Map<string, StatusJson>();
  for (const view of views) {
    const json = notificationStatus(view, context);
    if (json && !statuses.has(json.id)) statuses.set(json.id, json);
  }
  const accountJson = new Map<string, AccountJson>();
  for (const account of accounts)
    accountJson.set(account.actor.id, serializeAccount(account, context.publicUrl));
  for (const status of statuses.values())
    if (!accountJson.has(status.account.id)) accountJson.set(status.account.id, status.account);
  return {
    accounts: [...accountJson.values()],
    statuses: [...statuses.values()],
    notification_groups: groups.map(serializeNotificationGroup),
  };
}

const NO_REQUESTS = { pending_requests_count: 0, pending_notifications_count: 0 };

export function serializeNotificationPolicy(policy: NotificationPolicy): NotificationPolicyJson {
  return {
    for_not_following: policy.forNotFollowing,
    for_not_followers: policy.forNotFollowers,
    for_new_accounts: policy.forNewAccounts,
    for_private_mentions: policy.forPrivateMentions,
    for_limited_accounts: policy.forLimitedAccounts,
    summary: NO_REQUESTS,
  };
}

export function serializeV1NotificationPolicy(policy: NotificationPolicy): V1NotificationPolicyJson {
  return {
    filter_not_following: policy.forNotFollowing !== 'accept',
    filter_not_followers: policy.forNotFollowers !== 'accept',
    filter_new_accounts: policy.forNewAccounts !== 'accept',
    filter_private_mentions: policy.forPrivateMentions !== 'accept',
    summary: NO_REQUESTS,
  };
}
