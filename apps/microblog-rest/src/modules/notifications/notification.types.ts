/** The notification types this service makes (Mastodon's, issue 15 §5); `poll` comes from the polls work. */
export const NOTIFICATION_TYPES = [
  'mention',
  'status',
  'reblog',
  'follow',
  'follow_request',
  'favourite',
  'poll',
  'update',
] as const;

export type NotificationType = (typeof NOTIFICATION_TYPES)[number];

/** The types v2 groups by default (Mastodon 4.3: `favourite`, `reblog`, `follow`). */
export const GROUPABLE_TYPES: readonly NotificationType[] = ['favourite', 'reblog', 'follow'];

/** A stored notification (one row of `notifications`). */
export interface NotificationRow {
  id: string;
  type: NotificationType;
  accountId: string;
  fromAccountId: string;
  statusId: string | null;
  groupKey: string | null;
  createdAt: Date;
}

/** Which notifications a read asks for (`types[]`, `exclude_types[]`, `account_id`). */
export interface NotificationSelection {
  /** null: every type; else only these (the known ones asked for: none known asked, none shown). */
  types: NotificationType[] | null;
  excludeTypes: NotificationType[];
  /** Only those caused by this account; `false` when the id asked can match nothing. */
  fromAccountId: string | null | false;
}

/** Mastodon 4.3's notification policy values. */
export const POLICY_VALUES = ['accept', 'filter', 'drop'] as const;
export type PolicyValue = (typeof POLICY_VALUES)[number];

export interface NotificationPolicy {
  forNotFollowing: PolicyValue;
  forNotFollowers: PolicyValue;
  forNewAccounts: PolicyValue;
  forPrivateMentions: PolicyValue;
  forLimitedAccounts: PolicyValue;
}

export const DEFAULT_POLICY: NotificationPolicy = {
  forNotFollowing: 'accept',
  forNotFollowers: 'accept',
  forNewAccounts: 'accept',
  forPrivateMentions: 'filter',
  forLimitedAccounts: 'filter',
};
