import type { PollView } from '../modules/polls/views/poll.view.js';

/** Mastodon's Poll entity (2.8; not-shown.md §2.3): every attribute present, viewer's when signed in. */
export interface PollJson {
  id: string;
  expires_at: string | null;
  expired: boolean;
  multiple: boolean;
  votes_count: number;
  voters_count: number | null;
  options: Array<{ title: string; votes_count: number | null }>;
  emojis: never[];
  voted?: boolean;
  own_votes?: number[];
}

/** The JSON of a poll; option counts are null while `hide_totals` hides them (until it ends). */
export function serializePoll(view: PollView): PollJson {
  const showTotals = view.expired || !view.hideTotals;
  const json: PollJson = {
    id: view.id,
    expires_at: view.expiresAt === null ? null : view.expiresAt.toISOString(),
    expired: view.expired,
    multiple: view.multiple,
    votes_count: view.votesCount,
    voters_count: view.votersCount,
    options: view.options.map((title, index) => ({
      title,
      votes_count: showTotals ? (view.tallies[index] ?? 0) : null,
    })),
    emojis: [],
  };
  if (view.viewer) {
    json.voted = view.viewer.voted;
    json.own_votes = view.viewer.ownVotes;
  }
  return json;
}
