import { BadInput, NotFound, type JobQueue, type Logger, type PeriodicJob } from '@agora/core';
import { isRowId } from '@agora/db';
import type { Actor } from '@agora/federation';
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import { characterCount } from '../accounts/profile-text.js';
import { visibleTo } from '../statuses/status.model.js';
import type { NewPoll } from './poll-params.js';
import { loadPoll, type PollView } from './views/poll.view.js';

/** Closes a poll at its end (delayed to `expires_at`); listeners hear of it (`addCloseListener`). */
export const POLL_CLOSE_JOB = 'microblog.polls.close';
/** The sweep that closes ended polls whose close job was lost (periodic, on workers). */
export const POLL_SWEEP_JOB = 'microblog.polls.close-due';
const RECORD_NOT_FOUND = 'Record not found';

/** The instance's poll limits (`configuration.polls` of the instance entity reads the same config). */
export interface PollLimits {
  maxOptions: number;
  maxCharactersPerOption: number;
  /** Seconds. */
  minExpiration: number;
  maxExpiration: number;
}

export interface PollServiceDeps {
  sequelize: Sequelize;
  queue: JobQueue;
  logger: Logger;
  limits: PollLimits;
}

/** What happened when a poll ended: the notifications module tells its author and voters. */
export interface PollClosed {
  pollId: string;
  statusId: string;
  /** The author of the poll. */
  accountId: string;
  /** Local and remote accounts that voted. */
  voterIds: string[];
}

export type PollCloseListener = (event: PollClosed) => Promise<void>;
/** Told of a vote once committed (federation sends a vote on a remote poll to its author). */
export type PollVoteListener = (vote: {
  pollId: string;
  accountId: string;
  choices: number[];
}) => Promise<void>;

// The reference's messages (config/locales/en.yml `polls.errors`), as Rails prefixes them.
export const POLL_MESSAGES = {
  tooFew: 'Poll options must have more than one item',
  tooMany: (max: number) => `Poll options can't contain more than ${max} items`,
  tooLong: (max: number) => `Poll options cannot be longer than ${max} characters each`,
  duplicate: 'Poll options contain duplicate items',
  tooFar: 'Poll expires at is too far into the future',
  tooSoon: 'Poll expires at is too soon',
  // A poll and media on one status: the reference answers its "too many files" message.
  withMedia: (maxMedia: number) => `Cannot attach more than ${maxMedia} files`,
  expired: 'The poll has already ended',
  invalidChoice: 'The chosen vote option does not exist',
  selfVote: 'You cannot vote in your own polls',
  alreadyVoted: 'You have already voted on this poll',
} as const;

/**
 * Polls: checked and written with their status (`check`, `insert`, called by the statuses service),
 * read in batches with a page of statuses (`loadPollsByStatus`), voted on (`vote`), closed at their end by a job.
 */
export class PollService {
  private readonly closeListeners: PollCloseListener[] = [];
  private readonly voteListeners: PollVoteListener[] = [];

  constructor(private readonly deps: PollServiceDeps) {}

  /** Refuses a poll the instance does not take (Rails' messages). Errors: BadInput. */
  check(poll: NewPoll, mediaCount: number, maxMedia: number): void {
    const { limits } = this.deps;
    if (mediaCount > 0) throw new BadInput(POLL_MESSAGES.withMedia(maxMedia));
    const problems: string[] = [];
    if (poll.options.length < 2) problems.push(POLL_MESSAGES.tooFew);
    if (poll.options.length > limits.maxOptions) problems.push(POLL_MESSAGES.tooMany(limits.maxOptions));
    if (poll.options.some((option) => characterCount(option) > limits.maxCharactersPerOption)) {
      problems.push(POLL_MESSAGES.tooLong(limits.maxCharactersPerOption));
    }
    if (new Set(poll.options).size !== poll.options.length) problems.push(POLL_MESSAGES.duplicate);
    if (poll.expiresIn === undefined || poll.expiresIn > limits.maxExpiration)
      problems.push(POLL_MESSAGES.tooFar);
    else if (poll.expiresIn < limits.minExpiration) problems.push(POLL_MESSAGES.tooSoon);
    if (problems.length > 0) throw new BadInput(`Validation failed: ${problems.join(', ')}`);
  }

  /** Writes the poll of a new status in the status's transaction; returns the poll's id. */
  async insert(
    statusId: string,
    accountId: string,
    poll: NewPoll,
    transaction: Transaction,
  ): Promise<string> {
    const [row] = await this.deps.sequelize.query<{ id: string }>(
      `INSERT INTO polls (status_id, account_id, options, tallies, multiple, hide_totals, expires_at)
       VALUES ($1, $2, $3::text[], array_fill(0, ARRAY[cardinality($3::text[])]), $4, $5,
               now() + make_interval(secs => $6))
       RETURNING id::text AS id`,
      {
        bind: [statusId, accountId, poll.options, poll.multiple, poll.hideTotals, poll.expiresIn ?? 0],
        type: QueryTypes.SELECT,
        transaction,
      },
    );
    return row!.id;
  }

  /**
   * The poll of an edited status, in the edit's transaction: none removes it; new options or a
   * change of `multiple` start the votes again (as the reference); the end is counted from now.
   */
  async replace(
    statusId: string,
    accountId: string,
    poll: NewPoll | null,
    transaction: Transaction,
  ): Promise<void> {
    const { sequelize } = this.deps;
    const [current] = await sequelize.query<{ id: string; options: string[]; multiple: boolean }>(
      'SELECT id::text AS id, options, multiple FROM polls WHERE status_id = $1 FOR UPDATE',
      { bind: [statusId], type: QueryTypes.SELECT, transaction },
    );
    if (!poll) {
      if (current)
        await sequelize.query('DELETE FROM polls WHERE id = $1', { bind: [current.id], transaction });
      return;
    }
    if (!current) {
      await this.insert(statusId, accountId, poll, transaction);
      return;
    }
    const changed =
      poll.multiple !== current.multiple ||
      poll.options.length !== current.options.length ||
      poll.options.some((option, index) => option !== current.options[index]);
    if (changed)
      await sequelize.query('DELETE FROM poll_votes WHERE poll_id = $1', { bind: [current.id], transaction });
    await sequelize.query(
      `UPDATE polls SET options = $2::text[], multiple = $3, hide_totals = $4,
              expires_at = now() + make_interval(secs => $5), closed_at = NULL, updated_at = now(),
              tallies = CASE WHEN $6 THEN array_fill(0, ARRAY[cardinality($2::text[])]) ELSE tallies END,
              votes_count = CASE WHEN $6 THEN 0 ELSE votes_count END,
              voters_count = CASE WHEN $6 THEN 0 ELSE voters_count END
        WHERE id = $1`,
      {
        bind: [current.id, poll.options, poll.multiple, poll.hideTotals, poll.expiresIn ?? 0, changed],
        transaction,
      },
    );
  }

  /** After the status committed: the job that closes its poll at the end. */
  async scheduleClose(statusId: string): Promise<void> {
    const [row] = await this.deps.sequelize.query<{ id: string; seconds: number }>(
      `SELECT id::text AS id, greatest(ceil(extract(epoch FROM expires_at - now())), 0)::int AS seconds
         FROM polls WHERE status_id = $1 AND expires_at IS NOT NULL AND closed_at IS NULL`,
      { bind: [statusId], type: QueryTypes.SELECT },
    );
    if (row)
      await this.deps.queue.send(POLL_CLOSE_JOB, { pollId: row.id }, { startAfterSeconds: row.seconds });
  }

  /** GET /api/v1/polls/:id: a poll whose status the viewer may see. Errors: NotFound. */
  async get(pollId: string, viewerId: string | null): Promise<PollView> {
    await this.visiblePoll(pollId, viewerId);
    const view = await loadPoll(this.deps.sequelize, pollId, viewerId);
    if (!view) throw new NotFound(RECORD_NOT_FOUND);
    return view;
  }

  /**
   * POST /api/v1/polls/:id/votes. Refused as the reference refuses (422): an ended poll, a choice
   * out of range, the author's own poll, a second vote (or a choice twice in a multiple poll).
   * The poll's row lock makes concurrent votes count once each. Errors: NotFound, BadInput.
   */
  async vote(account: Actor, pollId: string, choices: number[]): Promise<PollView> {
    await this.visiblePoll(pollId, account.id);
    const { sequelize } = this.deps;
    await sequelize.transaction(async (transaction) => {
      const [poll] = await sequelize.query<{
        accountId: string;
        optionsCount: number;
        tallies: number[];
        multiple: boolean;
        expired: boolean;
      }>(
        `SELECT account_id::text AS "accountId", cardinality(options) AS "optionsCount", tallies, multiple,
                (expires_at IS NOT NULL AND expires_at <= now()) AS expired
           FROM polls WHERE id = $1 FOR UPDATE`,
        { bind: [pollId], type: QueryTypes.SELECT, transaction },
      );
      if (!poll) throw new NotFound(RECORD_NOT_FOUND);
      const previous = await sequelize.query<{ choice: number }>(
        'SELECT choice FROM poll_votes WHERE poll_id = $1 AND account_id = $2',
        { bind: [pollId, account.id], type: QueryTypes.SELECT, transaction },
      );
      const taken = new Set(previous.map((row) => row.choice));
      // Each choice is one vote, checked as the reference checks it, in order; the first refused
      // one refuses them all (nothing is written).
      for (const choice of choices) {
        const problems: string[] = [];
        if (poll.expired) problems.push(POLL_MESSAGES.expired);
        if (choice < 0 || choice >= poll.optionsCount) problems.push(POLL_MESSAGES.invalidChoice);
        if (poll.accountId === account.id) problems.push(POLL_MESSAGES.selfVote);
        if (poll.multiple ? taken.has(choice) : taken.size > 0) problems.push(POLL_MESSAGES.alreadyVoted);
        if (problems.length > 0) throw new BadInput(`Validation failed: ${problems.join(', ')}`);
        taken.add(choice);
      }
      const tallies = [...poll.tallies];
      for (const choice of choices) tallies[choice] = (tallies[choice] ?? 0) + 1;
      await sequelize.query(
        `INSERT INTO poll_votes (poll_id, account_id, choice) SELECT $1, $2, unnest($3::int[])`,
        { bind: [pollId, account.id, choices], transaction },
      );
      await sequelize.query(
        `UPDATE polls SET tallies = $2::int[], votes_count = votes_count + $3,
                voters_count = voters_count + $4, updated_at = now() WHERE id = $1`,
        { bind: [pollId, tallies, choices.length, previous.length === 0 ? 1 : 0], transaction },
      );
    });
    for (const listener of this.voteListeners) await listener({ pollId, accountId: account.id, choices });
    return this.get(pollId, account.id);
  }

  /** Hears of every vote, after its transaction committed. */
  addVoteListener(listener: PollVoteListener): void {
    this.voteListeners.push(listener);
  }

  /**
   * Hears of every poll that ends (once per poll, after its `closed_at` is committed). The hook of
   * the `poll` notifications: the notifications module registers here.
   */
  addCloseListener(listener: PollCloseListener): void {
    this.closeListeners.push(listener);
  }

  /**
   * The close job's work: marks the poll closed once its end has passed and tells the listeners.
   * Early (a clock ahead of the database's) it asks to run again at the end; closed already, nothing.
   */
  async close(pollId: string): Promise<PollClosed | null> {
    const { sequelize } = this.deps;
    const [row] = await sequelize.query<{ statusId: string; accountId: string }>(
      `UPDATE polls SET closed_at = now(), updated_at = now()
        WHERE id = $1 AND closed_at IS NULL AND expires_at <= now()
        RETURNING status_id::text AS "statusId", account_id::text AS "accountId"`,
      { bind: [pollId], type: QueryTypes.SELECT },
    );
    if (!row) {
      const [open] = await sequelize.query<{ seconds: number }>(
        `SELECT greatest(ceil(extract(epoch FROM expires_at - now())), 1)::int AS seconds
           FROM polls WHERE id = $1 AND closed_at IS NULL AND expires_at > now()`,
        { bind: [pollId], type: QueryTypes.SELECT },
      );
      if (open) await this.deps.queue.send(POLL_CLOSE_JOB, { pollId }, { startAfterSeconds: open.seconds });
      return null;
    }
    const voters = await sequelize.query<{ id: string }>(
      'SELECT DISTINCT account_id::text AS id FROM poll_votes WHERE poll_id = $1',
      { bind: [pollId], type: QueryTypes.SELECT },
    );
    const event: PollClosed = { pollId, ...row, voterIds: voters.map((voter) => voter.id) };
    for (const listener of this.closeListeners) await listener(event);
    return event;
  }

  /** Closes polls past their end that are still open (a lost or dead-lettered close job). */
  async closeDue(limit = 100): Promise<number> {
    const due = await this.deps.sequelize.query<{ id: string }>(
      `SELECT id::text AS id FROM polls WHERE closed_at IS NULL AND expires_at <= now()
        ORDER BY expires_at LIMIT $1`,
      { bind: [limit], type: QueryTypes.SELECT },
    );
    let closed = 0;
    for (const { id } of due) if (await this.close(id)) closed += 1;
    return closed;
  }

  /** The backstop sweep, for the app's PeriodicJobs. */
  periodicJobs(): PeriodicJob[] {
    return [{ name: POLL_SWEEP_JOB, periodMs: 5 * 60_000, run: () => this.closeDue() }];
  }

  /** The close worker (a no-op on role web); call before the queue starts. */
  async registerWorker(): Promise<void> {
    await this.deps.queue.work<{ pollId: string }>(POLL_CLOSE_JOB, async (job) => {
      await this.close(job.data.pollId);
    });
  }

  private async visiblePoll(pollId: string, viewerId: string | null): Promise<void> {
    if (!isRowId(pollId)) throw new NotFound(RECORD_NOT_FOUND);
    const rows = await this.deps.sequelize.query(
      `SELECT 1 FROM polls p JOIN statuses s ON s.id = p.status_id
        WHERE p.id = $1 AND s.deleted_at IS NULL AND ${visibleTo('$2::bigint')}`,
      { bind: [pollId, viewerId], type: QueryTypes.SELECT },
    );
    if (rows.length === 0) throw new NotFound(RECORD_NOT_FOUND);
  }
}
