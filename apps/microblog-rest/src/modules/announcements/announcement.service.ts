import { find as findLinks } from 'linkifyjs';
import { QueryTypes, type Sequelize } from 'sequelize';
import { z } from 'zod';
import { BadInput, NotFound } from '@agora/core';
import { isRowId } from '@agora/db';
import type { Actor, ActorStore } from '@agora/federation';
import { renderLinkedText } from '../statuses/linked-text.js';

export const RECORD_NOT_FOUND = 'Record not found';
/** Distinct reactions an announcement may carry (the reference's limit). */
export const MAX_REACTIONS = 8;
const MAX_TEXT = 10_000;

/** What an administrator writes. */
export interface AnnouncementInput {
  text: string;
  startsAt?: Date | null;
  endsAt?: Date | null;
  allDay?: boolean;
  /** false: a draft, listed to nobody until published. Default true. */
  published?: boolean;
}

export interface AnnouncementReactionView {
  name: string;
  count: number;
  /** The viewer reacted with it. */
  me: boolean;
}

/** An announcement as a viewer sees it, with what its text names resolved. */
export interface AnnouncementView {
  id: string;
  text: string;
  content: string;
  startsAt: Date | null;
  endsAt: Date | null;
  allDay: boolean;
  publishedAt: Date | null;
  updatedAt: Date;
  read: boolean;
  mentions: Actor[];
  statuses: Array<{ id: string; url: string }>;
  tags: string[];
  reactions: AnnouncementReactionView[];
}

interface AnnouncementRow {
  id: string;
  text: string;
  content: string;
  starts_at: Date | null;
  ends_at: Date | null;
  all_day: boolean;
  published_at: Date | null;
  updated_at: Date;
  mention_ids: string[];
  status_ids: string[];
  tag_names: string[];
}

const inputSchema = z
  .object({
    text: z.string().trim().min(1, "can't be blank").max(MAX_TEXT),
    startsAt: z.date().nullable().default(null),
    endsAt: z.date().nullable().default(null),
    allDay: z.boolean().default(false),
    published: z.boolean().default(true),
  })
  // As the reference: a time range has both ends, or neither.
  .refine((input) => (input.startsAt === null) === (input.endsAt === null), {
    message: 'must be given with starts_at',
    path: ['endsAt'],
  })
  .refine((input) => !input.startsAt || !input.endsAt || input.endsAt >= input.startsAt, {
    message: 'must be after starts_at',
    path: ['endsAt'],
  })
  .refine((input) => !input.allDay || (input.startsAt && input.endsAt), {
    message: 'needs starts_at and ends_at',
    path: ['allDay'],
  });

// A reaction is one unicode emoji (custom emojis are not served here): RGI sequences, with or
// without the text/emoji variation selector a keyboard may add.
// (Built with the constructor: the `v` flag is newer than the compile target; Node 24 runs it.)
const EMOJI = new RegExp('^\\p{RGI_Emoji}$', 'v');

export interface AnnouncementServiceDeps {
  sequelize: Sequelize;
  actors: ActorStore;
  publicUrl: string;
}

/**
 * Announcements: administrators write them (the admin CLI); every signed-in user lists the
 * published, current ones, marks them read (`dismiss`) and reacts with emojis.
 */
export class AnnouncementService {
  constructor(private readonly deps: AnnouncementServiceDeps) {}

  /** Writes an announcement (admin). Errors: BadInput. */
  async create(input: AnnouncementInput): Promise<AnnouncementView> {
    const parsed = parseInput(input);
    const rendered = await this.render(parsed.text);
    const [row] = await this.deps.sequelize.query<{ id: string }>(
      `INSERT INTO announcements
         (text, content, starts_at, ends_at, all_day, published_at, mention_ids, status_ids, tag_names)
       VALUES ($1, $2, $3, $4, $5, CASE WHEN $6::boolean THEN now() END, $7::bigint[], $8::bigint[], $9::text[])
       RETURNING id`,
      {
        type: QueryTypes.SELECT,
        bind: [
          parsed.text,
          rendered.html,
          parsed.startsAt,
          parsed.endsAt,
          parsed.allDay,
          parsed.published,
          rendered.mentionIds,
          rendered.statusIds,
          rendered.tags,
        ],
      },
    );
    return this.adminView(row!.id);
  }

  /** Publishes a draft, or takes a published one back (admin). Errors: NotFound. */
  async setPublished(id: string, published: boolean): Promise<AnnouncementView> {
    const changed = await this.exec(
      `UPDATE announcements
          SET published_at = CASE WHEN $2::boolean THEN coalesce(published_at, now()) END, updated_at = now()
        WHERE id = $1 RETURNING id`,
      [this.checkId(id), published],
    );
    if (changed === 0) throw new NotFound(RECORD_NOT_FOUND);
    return this.adminView(id);
  }

  /** Removes an announcement with its dismissals and reactions (admin). Errors: NotFound. */
  async remove(id: string): Promise<void> {
    const removed = await this.exec('DELETE FROM announcements WHERE id = $1 RETURNING id', [
      this.checkId(id),
    ]);
    if (removed === 0) throw new NotFound(RECORD_NOT_FOUND);
  }

  /** Every announcement, drafts and ended ones included, newest first (admin). */
  async all(): Promise<AnnouncementView[]> {
    const rows = await this.deps.sequelize.query<AnnouncementRow>(
      'SELECT * FROM announcements ORDER BY id DESC',
      { type: QueryTypes.SELECT },
    );
    return this.hydrate(rows, null);
  }

  /**
   * GET /api/v1/announcements: the published ones that have not ended, in the reference's
   * chronological order (by start, else publication), with the viewer's `read` and reactions.
   */
  async list(viewerId: string): Promise<AnnouncementView[]> {
    const rows = await this.deps.sequelize.query<AnnouncementRow>(
      `SELECT * FROM announcements
        WHERE published_at IS NOT NULL AND published_at <= now() AND (ends_at IS NULL OR ends_at > now())
        ORDER BY coalesce(starts_at, published_at), id`,
      { type: QueryTypes.SELECT },
    );
    return this.hydrate(rows, viewerId);
  }

  /** POST /api/v1/announcements/:id/dismiss: marks it read for the viewer. Errors: NotFound. */
  async dismiss(viewerId: string, id: string): Promise<void> {
    await this.requireListed(id);
    await this.exec(
      `INSERT INTO announcement_dismissals (account_id, announcement_id) VALUES ($1, $2)
       ON CONFLICT DO NOTHING RETURNING 1`,
      [viewerId, id],
    );
  }

  /**
   * PUT /api/v1/announcements/:id/reactions/:name: the viewer's reaction (once per name).
   * Errors: NotFound, BadInput (not an emoji, or a ninth distinct reaction).
   */
  async react(viewerId: string, id: string, name: string): Promise<void> {
    await this.requireListed(id);
    const emoji = emojiOf(name);
    if (emoji === null) throw invalidName('is not a recognized emoji');
    await this.deps.sequelize.transaction(async (transaction) => {
      // One writer per announcement at a time, so the distinct-reaction limit holds under races.
      await this.deps.sequelize.query('SELECT 1 FROM announcements WHERE id = $1 FOR UPDATE', {
        bind: [id],
        transaction,
      });
      const [known] = await this.deps.sequelize.query<{ names: number; has: boolean }>(
        `SELECT count(DISTINCT name)::int AS names, bool_or(name = $2) AS has
           FROM announcement_reactions WHERE announcement_id = $1`,
        { type: QueryTypes.SELECT, bind: [id, emoji], transaction },
      );
      if (!known?.has && (known?.names ?? 0) >= MAX_REACTIONS) {
        throw invalidName(
          `cannot be added: an announcement has at most ${MAX_REACTIONS} different reactions`,
        );
      }
      await this.deps.sequelize.query(
        `INSERT INTO announcement_reactions (announcement_id, account_id, name) VALUES ($1, $2, $3)
         ON CONFLICT DO NOTHING`,
        { bind: [id, viewerId, emoji], transaction },
      );
    });
  }

  /** DELETE /api/v1/announcements/:id/reactions/:name. Errors: NotFound (no such reaction of the viewer). */
  async unreact(viewerId: string, id: string, name: string): Promise<void> {
    await this.requireListed(id);
    const removed = await this.exec(
      `DELETE FROM announcement_reactions WHERE announcement_id = $1 AND account_id = $2 AND name = $3
       RETURNING 1`,
      [id, viewerId, emojiOf(name) ?? name],
    );
    if (removed === 0) throw new NotFound(RECORD_NOT_FOUND);
  }

  private async adminView(id: string): Promise<AnnouncementView> {
    const rows = await this.deps.sequelize.query<AnnouncementRow>(
      'SELECT * FROM announcements WHERE id = $1',
      {
        type: QueryTypes.SELECT,
        bind: [id],
      },
    );
    const [view] = await this.hydrate(rows, null);
    if (!view) throw new NotFound(RECORD_NOT_FOUND);
    return view;
  }

  private async requireListed(id: string): Promise<void> {
    const [row] = await this.deps.sequelize.query(
      `SELECT 1 FROM announcements
        WHERE id = $1 AND published_at IS NOT NULL AND published_at <= now()`,
      { type: QueryTypes.SELECT, bind: [this.checkId(id)] },
    );
    if (!row) throw new NotFound(RECORD_NOT_FOUND);
  }

  private checkId(id: string): string {
    if (!isRowId(id)) throw new NotFound(RECORD_NOT_FOUND);
    return id;
  }

  private async exec(sql: string, bind: unknown[]): Promise<number> {
    const rows = await this.deps.sequelize.query(sql, { type: QueryTypes.SELECT, bind });
    return rows.length;
  }

  /** A page of rows with their reactions, the viewer's dismissals, mentions and statuses: four queries. */
  private async hydrate(rows: AnnouncementRow[], viewerId: string | null): Promise<AnnouncementView[]> {
    if (rows.length === 0) return [];
    const ids = rows.map((row) => row.id);
    const { sequelize } = this.deps;
    const [reactions, dismissed, mentioned, statuses] = await Promise.all([
      sequelize.query<{ announcement_id: string; name: string; count: number; me: boolean }>(
        `SELECT announcement_id, name, count(*)::int AS count, coalesce(bool_or(account_id = $2), false) AS me
           FROM announcement_reactions WHERE announcement_id = ANY($1::bigint[])
          GROUP BY announcement_id, name ORDER BY announcement_id, min(created_at), name`,
        { type: QueryTypes.SELECT, bind: [ids, viewerId] },
      ),
      viewerId === null
        ? Promise.resolve([])
        : sequelize.query<{ announcement_id: string }>(
            `SELECT announcement_id FROM announcement_dismissals
              WHERE account_id = $1 AND announcement_id = ANY($2::bigint[])`,
            { type: QueryTypes.SELECT, bind: [viewerId, ids] },
          ),
      this.deps.actors.findByIds([...new Set(rows.flatMap((row) => row.mention_ids.map(String)))]),
      sequelize.query<{ id: string; url: string | null; uri: string | null }>(
        `SELECT id, url, uri FROM statuses
          WHERE id = ANY($1::bigint[]) AND deleted_at IS NULL AND visibility IN ('public', 'unlisted')`,
        { type: QueryTypes.SELECT, bind: [[...new Set(rows.flatMap((row) => row.status_ids.map(String)))]] },
      ),
    ]);
    const read = new Set(dismissed.map((row) => String(row.announcement_id)));
    const statusById = new Map(statuses.map((row) => [String(row.id), row]));
    return rows.map((row) => ({
      id: String(row.id),
      text: row.text,
      content: row.content,
      startsAt: row.starts_at,
      endsAt: row.ends_at,
      allDay: row.all_day,
      publishedAt: row.published_at,
      updatedAt: row.updated_at,
      read: read.has(String(row.id)),
      mentions: row.mention_ids.flatMap((id) => {
        const actor = mentioned.get(String(id));
        return actor && !actor.suspended ? [actor] : [];
      }),
      statuses: row.status_ids.flatMap((id) => {
        const status = statusById.get(String(id));
        return status ? [{ id: String(status.id), url: status.url ?? status.uri ?? '' }] : [];
      }),
      tags: row.tag_names,
      reactions: reactions
        .filter((reaction) => String(reaction.announcement_id) === String(row.id))
        .map((reaction) => ({ name: reaction.name, count: reaction.count, me: reaction.me })),
    }));
  }

  /** The text as HTML (the statuses' renderer), with the accounts, local statuses and tags it names. */
  private async render(
    text: string,
  ): Promise<{ html: string; mentionIds: string[]; statusIds: string[]; tags: string[] }> {
    const { html, mentionIds, tags } = await renderLinkedText(text, this.deps);
    return { html, mentionIds, statusIds: await this.linkedStatusIds(text), tags };
  }

  /** Links to this server's statuses (`/@name/:id` or `/users/name/statuses/:id`) that exist. */
  private async linkedStatusIds(text: string): Promise<string[]> {
    const candidates = new Set<string>();
    for (const link of findLinks(text, 'url')) {
      if (!URL.canParse(link.href)) continue;
      const url = new URL(link.href);
      if (`${url.protocol}//${url.host}`.toLowerCase() !== this.deps.publicUrl.toLowerCase()) continue;
      const match = /^\/(?:@[^/]+|users\/[^/]+\/statuses)\/(\d{1,19})\/?$/.exec(url.pathname);
      if (match?.[1] && isRowId(match[1])) candidates.add(match[1]);
    }
    if (candidates.size === 0) return [];
    const rows = await this.deps.sequelize.query<{ id: string }>(
      `SELECT id FROM statuses
        WHERE id = ANY($1::bigint[]) AND local AND deleted_at IS NULL AND visibility IN ('public', 'unlisted')`,
      { type: QueryTypes.SELECT, bind: [[...candidates]] },
    );
    const found = new Set(rows.map((row) => String(row.id)));
    return [...candidates].filter((id) => found.has(id));
  }
}

function parseInput(input: AnnouncementInput): z.output<typeof inputSchema> {
  const parsed = inputSchema.safeParse(input);
  if (parsed.success) return parsed.data;
  const fields: Record<string, string[]> = {};
  for (const issue of parsed.error.issues) {
    const field = snake(String(issue.path[0] ?? 'base'));
    (fields[field] ??= []).push(issue.message);
  }
  const summary = Object.entries(fields)
    .map(([field, messages]) => `${field} ${messages.join(', ')}`)
    .join('; ');
  throw new BadInput(`Validation failed: ${summary}`, { fields });
}

function snake(name: string): string {
  return name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

/** The emoji as stored: keyboards may leave out the emoji variation selector (❤ for ❤️). */
function emojiOf(name: string): string | null {
  const normalized = name.normalize('NFC');
  if (EMOJI.test(normalized)) return normalized;
  return EMOJI.test(`${normalized}\uFE0F`) ? `${normalized}\uFE0F` : null;
}

function invalidName(message: string): BadInput {
  return new BadInput(`Validation failed: Name ${message}`, { fields: { name: [message] } });
}
