import { randomUUID } from 'node:crypto';
import type { SessionUser } from '@agora/auth';
import { BadInput, Forbidden, isUuid, NotFound } from '@agora/core';
import { sanitizeRemoteHtml, type Actor } from '@agora/federation';
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import type { ActivityService } from '../activities/activity.service.js';
import { commentLanguage } from '../comments/comment.service.js';
import { detectLanguage } from '../events/event-language.js';
import { eventTags, setTagsOf } from '../events/event-tags.js';
import type { MediaService, PictureChoice, StagedMedia } from '../media/media.service.js';
import type { GroupRoles } from '../members/group-roles.js';
import { isMemberRole } from '../members/member-row.js';
import { POST_COLUMNS, type PostRow, type PostVisibility } from './post-row.js';
import { postSlug } from './post-slug.js';

/** The reference's texts (spec not-shown.md §6.26 and its post resolver and changeset). */
export const POST_MESSAGES = {
  notFound: 'Post not found',
  invalidId: 'Post ID is not a valid ID',
  doesNotExist: "Post doesn't exist",
  notMember: 'Profile is not member of group',
  titleRequired: 'A title is required for the post',
  bodyRequired: 'A text is required for the post',
} as const;

const TITLE_MAX = 1_000;
const BODY_MAX = 100_000;
const REFUSAL = { code: 'unknown_error' } as const;

export interface PostInput {
  title?: string | null | undefined;
  body?: string | null | undefined;
  draft?: boolean | null | undefined;
  visibility?: PostVisibility | null | undefined;
  publishAt?: Date | null | undefined;
  tags?: ReadonlyArray<string | null> | null | undefined;
  language?: string | null | undefined;
  /** A staged upload or one of the caller's media; null removes the picture, undefined keeps it. */
  picture?: PictureChoice | null | undefined;
}

export interface NewPost extends PostInput {
  attributedToId: string;
  title: string;
  body: string;
}

export interface PostChanges extends PostInput {
  /** Moves the post to another group of the author's. */
  attributedToId?: string | null | undefined;
}

export interface PostServiceOptions {
  sequelize: Sequelize;
  media: MediaService;
  roles: GroupRoles;
  activities: ActivityService;
  /** Post URLs are `<publicUrl>/p/<slug>`. */
  publicUrl: string;
  /** Told after each committed change (group federation). */
  hooks?: PostHooks;
}

/** After-commit hook: a post created, updated (with what it was) or deleted by `actorId`. */
export interface PostHooks {
  changed(
    change: 'created' | 'updated' | 'deleted',
    post: PostRow,
    before: PostRow | null,
    actorId: string,
  ): Promise<void>;
}

/** Whom a read is for: the viewer's default profile, and whether the viewer moderates the instance. */
export interface PostReader {
  actorId: string | null;
  instanceModerator: boolean;
}

/**
 * The rules of group posts (issue 14 §4, spec not-shown.md §2.2 and behaviour 26): members of the
 * group write, update and delete them; members read every one (drafts and private ones too), anyone
 * else reads published PUBLIC ones, and UNLISTED ones by their slug.
 */
export class PostService {
  constructor(private readonly options: PostServiceOptions) {}

  async create(user: SessionUser, author: Actor, input: NewPost): Promise<PostRow> {
    // A staged upload's files go when anything below refuses or fails.
    return this.options.media.withStaged(stagedOf(input.picture), async () => {
      await this.requireMember(author.id, input.attributedToId);
      const title = postTitle(input.title);
      const body = postBody(input.body);
      const language = postLanguage(input.language, title, body);
      const draft = input.draft ?? false;
      const id = randomUUID();
      const slug = postSlug(title, id);
      const post = await this.options.sequelize.transaction(async (transaction) => {
        const pictureId = input.picture
          ? await this.pictureId(user, input.attributedToId, input.picture, transaction)
          : null;
        const [row] = await this.options.sequelize.query<PostRow>(
          `INSERT INTO posts AS p (id, slug, url, title, body, draft, visibility, language, publish_at, author_id,
             attributed_to_id, picture_id)
           VALUES (:id, :slug, :url, :title, :body, :draft, :visibility, :language, :publishAt, :authorId,
             :groupId, :pictureId)
           RETURNING ${POST_COLUMNS}`,
          {
            type: QueryTypes.SELECT,
            transaction,
            replacements: {
              id,
              slug,
              url: `${this.options.publicUrl}/p/${slug}`,
              title,
              body,
              draft,
              visibility: input.visibility ?? 'PUBLIC',
              language,
              publishAt: draft ? null : (input.publishAt ?? new Date()),
              authorId: author.id,
              groupId: input.attributedToId,
              pictureId,
            },
          },
        );
        await setTagsOf(this.options.sequelize, 'post', id, postTags(input.tags ?? []), transaction);
        await this.recordActivity('post_created', row!, author.id, transaction);
        return row!;
      });
      await this.options.hooks?.changed('created', post, null, author.id);
      return post;
    });
  }

  /** Changes a post of a group the acting profile is a member of; omitted values stay. */
  async update(user: SessionUser, actor: Actor, id: string, changes: PostChanges): Promise<PostRow> {
    // A staged upload's files go when anything below refuses or fails.
    return this.options.media.withStaged(stagedOf(changes.picture), () =>
      this.apply(user, actor, id, changes),
    );
  }

  private async apply(user: SessionUser, actor: Actor, id: string, changes: PostChanges): Promise<PostRow> {
    const post = await this.existing(id);
    await this.requireMember(actor.id, post.attributedToId);
    const groupId = changes.attributedToId ?? post.attributedToId;
    if (groupId !== post.attributedToId) await this.requireMember(actor.id, groupId);
    const title = changes.title == null ? post.title : postTitle(changes.title);
    const body = changes.body == null ? post.body : postBody(changes.body);
    // The language argument defaults to "und" (as the reference's does): then it is detected again.
    const language = postLanguage(changes.language, title, body);
    const draft = changes.draft ?? post.draft;
    const publishAt = draft
      ? null
      : changes.publishAt != null
        ? changes.publishAt
        : (post.publishAt ?? new Date());
    const updated = await this.options.sequelize.transaction(async (transaction) => {
      let pictureId = post.pictureId;
      if (changes.picture !== undefined) {
        pictureId =
          changes.picture === null ? null : await this.pictureId(user, groupId, changes.picture, transaction);
      }
      const [row] = await this.options.sequelize.query<PostRow>(
        `UPDATE posts AS p SET title = :title, body = :body, draft = :draft, visibility = :visibility,
             language = :language, publish_at = :publishAt, attributed_to_id = :groupId, picture_id = :pictureId,
             updated_at = now()
           WHERE p.id = :id
           RETURNING ${POST_COLUMNS}`,
        {
          type: QueryTypes.SELECT,
          transaction,
          replacements: {
            id: post.id,
            title,
            body,
            draft,
            visibility: changes.visibility ?? post.visibility,
            language,
            publishAt,
            groupId,
            pictureId,
          },
        },
      );
      if (!row) throw new NotFound(POST_MESSAGES.doesNotExist, REFUSAL);
      if (changes.tags != null)
        await setTagsOf(this.options.sequelize, 'post', post.id, postTags(changes.tags), transaction);
      await this.recordActivity('post_updated', row, actor.id, transaction);
      return row;
    });
    await this.options.hooks?.changed('updated', updated, post, actor.id);
    return updated;
  }

  async remove(actor: Actor, id: string): Promise<PostRow> {
    const post = await this.existing(id);
    await this.requireMember(actor.id, post.attributedToId);
    await this.options.sequelize.transaction(async (transaction) => {
      await this.options.sequelize.query('DELETE FROM posts WHERE id = :id', {
        transaction,
        replacements: { id: post.id },
      });
      await this.recordActivity('post_deleted', post, actor.id, transaction);
    });
    await this.options.hooks?.changed('deleted', post, post, actor.id);
    return post;
  }

  /** `post(slug)`: members see their group's every post; others published PUBLIC and UNLISTED ones. */
  async bySlug(slug: string, reader: PostReader): Promise<PostRow> {
    const [post] = await this.options.sequelize.query<PostRow>(
      `SELECT ${POST_COLUMNS} FROM posts p WHERE p.slug = :slug`,
      { type: QueryTypes.SELECT, replacements: { slug } },
    );
    if (!post) throw postNotFound();
    if (isPublished(post) && post.visibility !== 'PRIVATE') return post;
    if (
      reader.actorId &&
      isMemberRole(await this.options.roles.ofActor(reader.actorId, post.attributedToId))
    ) {
      return post;
    }
    throw postNotFound();
  }

  /** The post by id (for activities' objects), whatever its visibility; null when gone. */
  async byId(id: string): Promise<PostRow | null> {
    if (!isUuid(id)) return null;
    const [post] = await this.options.sequelize.query<PostRow>(
      `SELECT ${POST_COLUMNS} FROM posts p WHERE p.id = :id`,
      { type: QueryTypes.SELECT, replacements: { id } },
    );
    return post ?? null;
  }

  private async existing(id: string): Promise<PostRow> {
    if (!isUuid(id)) throw new BadInput(POST_MESSAGES.invalidId, REFUSAL);
    const post = await this.byId(id);
    if (!post) throw new NotFound(POST_MESSAGES.doesNotExist, REFUSAL);
    return post;
  }

  private async requireMember(actorId: string, groupId: string): Promise<void> {
    if (!isMemberRole(await this.options.roles.ofActor(actorId, groupId))) {
      throw new Forbidden(POST_MESSAGES.notMember, REFUSAL);
    }
  }

  /** The picture's media id: an existing media of the caller's, or the staged upload, now the group's. */
  private async pictureId(
    user: SessionUser,
    groupId: string,
    choice: PictureChoice,
    transaction: Transaction,
  ): Promise<string> {
    if ('existing' in choice) return choice.existing.id;
    const media = await this.options.media.commit(
      choice.staged,
      groupId,
      user.id,
      choice.details,
      transaction,
    );
    return String(media.id);
  }

  private recordActivity(
    subject: 'post_created' | 'post_updated' | 'post_deleted',
    post: PostRow,
    authorId: string,
    transaction: Transaction,
  ): Promise<void> {
    return this.options.activities.record(
      {
        type: 'POST',
        subject,
        subjectParams: { post_slug: post.slug, post_title: post.title },
        groupId: post.attributedToId,
        authorId,
        objectType: subject === 'post_deleted' ? null : 'post',
        objectId: subject === 'post_deleted' ? null : post.id,
      },
      transaction,
    );
  }
}

/** Published: not a draft, and its `publishAt` has come (a later one schedules it for non-members). */
export function isPublished(post: PostRow, now: Date = new Date()): boolean {
  return !post.draft && post.publishAt !== null && post.publishAt.getTime() <= now.getTime();
}

export function postNotFound(): NotFound {
  return new NotFound(POST_MESSAGES.notFound, { code: 'post_not_found' });
}

function postTitle(raw: string): string {
  const title = raw.trim();
  if (title === '') throw BadInput.field('title', POST_MESSAGES.titleRequired);
  if (title.length > TITLE_MAX) throw BadInput.field('title', `should be at most ${TITLE_MAX} character(s)`);
  return title;
}

function postBody(raw: string): string {
  if (raw.length > BODY_MAX) throw BadInput.field('body', `should be at most ${BODY_MAX} character(s)`);
  const body = sanitizeRemoteHtml(raw.trim());
  if (body.replace(/<[^>]*>/g, '').trim() === '' && !/<img\b/i.test(body)) {
    throw BadInput.field('body', POST_MESSAGES.bodyRequired);
  }
  return body;
}

/** The language given (a BCP 47 tag), else detected from the text, as the reference does ("und" = not given). */
function postLanguage(given: string | null | undefined, title: string, body: string): string {
  const tag = commentLanguage(given);
  return tag && tag !== 'und' ? tag : detectLanguage(title, body);
}

/** Tags as given, one per slug, the first spelling kept. */
function postTags(given: ReadonlyArray<string | null>): Array<{ slug: string; title: string }> {
  return eventTags(
    given.filter((tag): tag is string => tag !== null),
    '',
  );
}

function stagedOf(picture: PictureChoice | null | undefined): StagedMedia[] {
  return picture && 'staged' in picture ? [picture.staged] : [];
}
