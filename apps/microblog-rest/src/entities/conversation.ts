import type { AccountJson } from './account.js';
import type { StatusJson } from './status.js';

/** Mastodon's Conversation entity (2.6): the other participants and the last status. */
export interface ConversationJson {
  id: string;
  unread: boolean;
  accounts: AccountJson[];
  last_status: StatusJson | null;
}

export function serializeConversation(
  row: { id: string; unread: boolean },
  accounts: AccountJson[],
  lastStatus: StatusJson | null,
): ConversationJson {
  return { id: row.id, unread: row.unread, accounts, last_status: lastStatus };
}
