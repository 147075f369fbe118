import {
  BadInput,
  Forbidden,
  isUuid,
  type JobQueue,
  logFailure,
  type Logger,
  NotFound,
  type PubSub,
} from '@agora/core';
import {
  idOf,
  sameOrigin,
  type Actor,
  type ActorStore,
  type Federation,
  type InboxContext,
} from '@agora/federation';
import { QueryTypes, type Sequelize } from 'sequelize';
import { COMMENT_COLUMNS, type CommentRow } from '../modules/comments/comment-row.js';
import { commentText } from '../modules/comments/comment.service.js';
import { publishDiscussionComment } from '../modules/discussions/discussion-changes.js';
import { DISCUSSION_COLUMNS, type DiscussionRow } from '../modules/discussions/discussion-row.js';
import type { DiscussionHooks, DiscussionService } from '../modules/discussions/discussion.service.js';
import { isModeratorRole, MEMBER_OF_GROUP, type MemberRole } from '../modules/members/member-row.js';
import { POST_COLUMNS, type PostRow } from '../modules/posts/post-row.js';
import type { PostHooks } from '../modules/posts/post.service.js';
import { RESOURCE_COLUMNS, type ResourceRow } from '../modules/resources/resource-row.js';
import type { ResourceHooks } from '../modules/resources/resource.service.js';
import type { TodoListRow } from '../modules/todos/todo-row.js';
import type { TodoHooks } from '../modules/todos/todo.service.js';
import {
  announceActivity,
  contentActivity,
  discussionNote,
  membersAudience,
  postArticle,
  postAudience,
  resourceObject,
  todoListObject,
  todoObject,
  type ContentActivityType,
} from './group-content-objects.js';
import { GroupContentDocuments } from './group-content-documents.js';
import { REMOTE_GROUP_OBJECT_TYPES, RemoteGroupContent } from './remote-group-content.js';

export interface GroupContentFederationOptions {
  sequelize: Sequelize;
  actors: ActorStore;
  federation: Federation;
  logger: Logger;
  /** Where `discussionCommentChanged` is told of remote edits. */
  pubsub: PubSub;
  publicUrl: string;
  /** Where a post to publish later waits for its `publishAt` (a job). */
  queue: JobQueue;
  clock?: () => Date;
}

/** The job that sends a local group's post when its `publishAt` comes. */
export const GROUP_POST_PUBLISH_JOB = 'group-post-publish';

/** Who hears of an object beside the group's members: a public or unlisted post also goes to its followers. */
interface Reach {
  followers?: boolean;
  /** An actor left out (the remote author of what the group re-broadcasts). */
  except?: string | null;
}

const MEMBER_ROLES_SQL = `(${MEMBER_OF_GROUP.map((role) => `'${role}'`).join(', ')})`;

/**
 * A group's content over ActivityPub (issue 14 §10, not-shown.md §5): committed local writes of posts,
 * discussions, resources and todos become the reference's activities, sent by the group to its remote
 * members (a public post also to its followers) — or, in a remote group, by the local author to the
 * group. The inbox takes remote members' discussion messages through the discussions service's own
 * rules, and the group re-broadcasts them to its other members with `Announce`.
 */
export class GroupContentFederation {
  private readonly logger: Logger;
  private readonly clock: () => Date;
  private readonly remote: RemoteGroupContent;
  /** The group's objects served by content negotiation (`group-content-routes.ts`). */
  readonly documents: GroupContentDocuments;

  constructor(private readonly options: GroupContentFederationOptions) {
    this.logger = options.logger.child({ component: 'group-content-federation' });
    this.clock = options.clock ?? (() => new Date());
    this.remote = new RemoteGroupContent({ ...options, logger: this.logger });
    this.documents = new GroupContentDocuments(options);
  }

  // ---- Outbound ----------------------------------------------------------------------------------

  postHooks(): PostHooks {
    return {
      changed: (change, post, before) =>
        this.safely(`post ${change}`, async () => {
          if (!post.local) return;
          const now = this.clock();
          const wasOut = before !== null && postIsOut(before, now);
          const isOut = change !== 'deleted' && postIsOut(post, now);
          const [group, author] = await this.actorsOf(post.attributedToId, post.authorId);
          if (!group) return;
          const article = postArticle(post, group, author);
          if (isOut) {
            const type = wasOut ? 'Update' : 'Create';
            await this.send(group, author, type, article, { followers: post.visibility !== 'PRIVATE' });
          } else if (wasOut) {
            const gone = { ...article, ...postAudience(before, group) };
            await this.send(group, author, 'Delete', gone, { followers: before.visibility !== 'PRIVATE' });
          }
          if (change !== 'deleted' && !post.draft && post.publishAt && post.publishAt > now) {
            await this.schedulePost(post, now);
          }
        }),
    };
  }

  /** Runs the scheduled sends of posts on worker roles (web processes only enqueue). */
  async registerWorkers(): Promise<void> {
    await this.options.queue.work<{ postId: string; publishAt: string }>(GROUP_POST_PUBLISH_JOB, (job) =>
      this.publishDue(job.data.postId, job.data.publishAt),
    );
  }

  /** A post waiting for its `publishAt` gets a job then; the same post and time are one job. */
  private async schedulePost(post: PostRow, now: Date): Promise<void> {
    const publishAt = post.publishAt!.toISOString();
    await this.options.queue.send(
      GROUP_POST_PUBLISH_JOB,
      { postId: post.id, publishAt },
      {
        startAfterSeconds: Math.max(0, Math.ceil((post.publishAt!.getTime() - now.getTime()) / 1000)),
        singletonKey: `${post.id}@${publishAt}`,
      },
    );
  }

  /**
   * A scheduled post's time came: sent as its Create, unless it was deleted, made a draft or moved to
   * another time since (that time has its own job), or is not out yet.
   */
  private async publishDue(postId: string, publishAt: string): Promise<void> {
    const [post] = await this.rows<PostRow>(`SELECT ${POST_COLUMNS} FROM posts p WHERE p.id = :postId`, {
      postId,
    });
    if (!post?.local || post.publishAt?.toISOString() !== publishAt || !postIsOut(post, this.clock())) return;
    const [group, author] = await this.actorsOf(post.attributedToId, post.authorId);
    if (!group) return;
    await this.send(group, author, 'Create', postArticle(post, group, author), {
      followers: post.visibility !== 'PRIVATE',
    });
  }

  discussionHooks(): DiscussionHooks {
    return {
      commented: (discussion, comment) =>
        this.safely('discussion message', () => this.sendMessage('Create', discussion, comment)),
      renamed: (discussion) =>
        this.safely('discussion renamed', async () => {
          if (!discussion.lastCommentId) return;
          const [group, creator] = await this.actorsOf(discussion.actorId, discussion.creatorId);
          const last = await this.comment(discussion.lastCommentId);
          if (!group || !last) return;
          // The reference's discussion object: the Note of the discussion itself, named, with its last text.
          const object = {
            ...discussionNote(last, discussion, group, creator, null),
            id: discussion.url,
          };
          await this.send(group, creator, 'Update', object, {});
        }),
      deleted: (discussion, actorId) =>
        this.safely('discussion deleted', async () => {
          const [group, actor] = await this.actorsOf(discussion.actorId, actorId);
          if (!group) return;
          const object = { type: 'Note', id: discussion.url, ...membersAudience(group) };
          await this.send(group, actor, 'Delete', object, {});
        }),
    };
  }

  /** A discussion message edited or deleted through the comments service (event comments are not ours). */
  commentChanged(
    change: 'created' | 'updated' | 'deleted',
    comment: CommentRow,
    before: CommentRow | null,
  ): Promise<void> {
    return this.safely(`discussion message ${change}`, async () => {
      if (change === 'created' || !comment.local) return;
      const discussion = await this.discussionOfComment(comment.id);
      if (!discussion) return;
      // A tombstone has lost its author: the deletion is told as theirs.
      const author = comment.actorId ?? before?.actorId ?? null;
      await this.sendMessage(change === 'updated' ? 'Update' : 'Delete', discussion, {
        ...comment,
        actorId: author,
      });
    });
  }

  resourceHooks(): ResourceHooks {
    return {
      created: (resource) =>
        this.safely('resource created', async () => {
          const { group, object, parentUrl, creator } = await this.resourceSource(resource);
          if (!group) return;
          // In a folder the reference `Add`s it to that folder; at the root it `Create`s it.
          if (parentUrl) await this.send(group, creator, 'Add', object, {}, { target: parentUrl });
          else await this.send(group, creator, 'Create', object, {});
        }),
      updated: (before, after) =>
        this.safely('resource updated', async () => {
          const { group, object, parentUrl, creator } = await this.resourceSource(after);
          if (!group) return;
          if (before.parentId === after.parentId)
            return void (await this.send(group, creator, 'Update', object, {}));
          const origin = before.parentId ? await this.resourceUrl(before.parentId) : null;
          const collection = String(resourceObject(after, group, null, null).context);
          await this.send(
            group,
            creator,
            'Move',
            object,
            {},
            {
              origin: origin ?? collection,
              target: parentUrl ?? collection,
            },
          );
        }),
      deleted: (resource, actorId) =>
        this.safely('resource deleted', async () => {
          const [group, actor] = await this.actorsOf(resource.groupId, actorId);
          if (!group) return;
          const object = { ...resourceObject(resource, group, actor, null), context: undefined };
          await this.send(group, actor, 'Delete', object, {});
        }),
    };
  }

  todoHooks(): TodoHooks {
    return {
      listCreated: (list, actorId) =>
        this.safely('todo list created', async () => {
          const [group, actor] = await this.actorsOf(list.groupId, actorId);
          if (group) await this.send(group, actor, 'Create', todoListObject(list, group), {});
        }),
      todoChanged: (change, todo, actorId) =>
        this.safely(`todo ${change}`, async () => {
          const [group, actor] = await this.actorsOf(todo.groupId, actorId);
          const [list] = await this.rows<TodoListRow>('SELECT url FROM todo_lists WHERE id = :id', {
            id: todo.todoListId,
          });
          if (!group || !list) return;
          const [creator, assignee] = await this.actorsOf(todo.creatorId, todo.assignedToId);
          const object = todoObject(todo, list.url, group, creator, assignee);
          await this.send(group, actor, change === 'created' ? 'Create' : 'Update', object, {});
        }),
    };
  }

  /** A discussion message out: local ones as Create/Update/Delete; a remote member's is re-broadcast. */
  private async sendMessage(
    type: 'Create' | 'Update' | 'Delete',
    discussion: DiscussionRow,
    comment: CommentRow,
  ): Promise<void> {
    const [group, author] = await this.actorsOf(discussion.actorId, comment.actorId);
    if (!group) return;
    const parent = comment.inReplyToCommentId ? await this.comment(comment.inReplyToCommentId) : null;
    const note = discussionNote(comment, discussion, group, author, parent?.url ?? null);
    if (comment.local) {
      if (type === 'Delete')
        await this.send(
          group,
          author,
          'Delete',
          { type: 'Note', id: comment.url, ...membersAudience(group) },
          {},
        );
      else await this.send(group, author, type, note, {});
    } else if (group.local && author && !author.local) {
      await this.announce(group, type === 'Delete' ? comment.url : note, author.id);
    }
  }

  /**
   * Sends an activity about a group's object: a local group sends it to its remote members (and
   * followers when `reach.followers`), signed as the group; in a remote group the local author sends
   * it to the group, which relays it.
   */
  private async send(
    group: Actor,
    author: Actor | null,
    type: ContentActivityType,
    object: Record<string, unknown>,
    reach: Reach,
    extra: Record<string, unknown> = {},
  ): Promise<void> {
    const { delivery } = this.options.federation;
    if (group.local) {
      const recipients = await this.remoteMembers(group.id, reach.except ?? null);
      // A group without remote members (and no followers to reach) has no one to tell.
      if (recipients.length === 0 && !reach.followers) return;
      const activity = contentActivity(type, object, group, this.clock(), extra);
      await delivery.deliver(activity, {
        senderActorId: group.id,
        recipients,
        ...(reach.followers ? { followersOf: group.id } : {}),
      });
    } else if (author?.local) {
      const activity = contentActivity(type, object, author, this.clock(), extra);
      await delivery.deliver(activity, { senderActorId: author.id, recipients: [group.id] });
    }
  }

  /** The group's `Announce` of a remote member's message to its other remote members. */
  private async announce(
    group: Actor,
    object: Record<string, unknown> | string,
    authorId: string,
  ): Promise<void> {
    const recipients = await this.remoteMembers(group.id, authorId);
    if (recipients.length === 0) return;
    const activity = announceActivity(this.options.publicUrl, group, object, this.clock());
    await this.options.federation.delivery.deliver(activity, { senderActorId: group.id, recipients });
  }

  // ---- Inbound -------------------------------------------------------------------------------------

  /** Adds the handlers of discussion messages (the composition root calls it once, after EventFederation's). */
  registerInbox(discussions: DiscussionService): void {
    const inbox = this.options.federation.inbox;
    inbox.on('Create:Note', (context) => this.receiveMessage(context, discussions));
    inbox.on('Update:Note', (context) => this.receiveEdit(context));
    for (const key of ['Delete', 'Delete:Tombstone', 'Delete:Note']) {
      inbox.on(key, (context) => this.receiveDelete(context));
    }
    // A remote group's own content: what it creates, adds to its folders, updates or relays.
    const groupContent = (context: InboxContext) => this.receiveGroupContent(context);
    for (const type of REMOTE_GROUP_OBJECT_TYPES.filter((item) => item !== 'Note')) {
      for (const verb of ['Create', 'Update', 'Add']) inbox.on(`${verb}:${type}`, groupContent);
    }
    inbox.on('Announce', groupContent);
  }

  /** A remote group (with local members) sends or relays one of its objects: stored as its content. */
  private async receiveGroupContent({ activity, signer }: InboxContext): Promise<void> {
    if (!(await this.remote.hasLocalMembers(signer))) return;
    const object =
      activity.type === 'Announce'
        ? await this.remote.announced(signer, activity.object)
        : objectOf(activity);
    const id = idOf(object);
    // An Add's embedded object is not vouched for by the signature's origin check: it must be the group's.
    if (!object || !id || (activity.type === 'Add' && !sameOrigin(id, signer.uri))) return;
    if (!(await this.remote.store(signer, object))) {
      this.logger.info({ id, group: signer.uri }, 'ignored a remote group object');
    }
  }

  /** A remote member's message in a discussion of a local group (or one opening a discussion there). */
  private async receiveMessage(
    { activity, signer }: InboxContext,
    discussions: DiscussionService,
  ): Promise<void> {
    const note = objectOf(activity);
    if (!note) return;
    if (signer.type === 'Group' && !signer.local)
      return this.receiveGroupContent({ activity, signer, recipient: null });
    const url = idOf(note);
    const target = await this.discussionOf(note);
    if (!url || !target) return;
    if (authorOf(note) !== signer.uri) {
      return void this.logger.info(
        { id: url, signer: signer.uri },
        'refused a discussion message not by its signer',
      );
    }
    if (signer.local || (await this.commentByUrl(url))) return;
    const message = {
      url,
      uuid: typeof note.uuid === 'string' && isUuid(note.uuid) ? note.uuid.toLowerCase() : null,
      publishedAt: dateOf(note.published),
    };
    const content = typeof note.content === 'string' ? note.content : '';
    try {
      if ('discussion' in target) {
        await discussions.reply(signer, target.discussion.id, content, message);
      } else {
        const title = typeof note.name === 'string' ? note.name : '';
        await discussions.create(signer, target.groupId, title, content, {
          ...message,
          discussionUrl: target.url,
        });
      }
    } catch (error) {
      if (!(error instanceof Forbidden || error instanceof BadInput || error instanceof NotFound))
        throw error;
      // Not a member (behaviour 28), an empty or oversized text: nothing is stored.
      this.logger.info(
        { id: url, signer: signer.uri, reason: error.message },
        'refused a discussion message',
      );
    }
  }

  /** A remote author's edit of its own discussion message: stored sanitized, told, re-broadcast. */
  private async receiveEdit({ activity, signer }: InboxContext): Promise<void> {
    const note = objectOf(activity);
    const url = idOf(note);
    if (!note || !url || authorOf(note) !== signer.uri) return;
    const comment = await this.commentByUrl(url);
    if (!comment || comment.local || comment.actorId !== signer.id || comment.deletedAt) return;
    const discussion = await this.discussionOfComment(comment.id);
    if (!discussion || !(await this.isMember(signer.id, discussion.actorId))) return;
    let text: string;
    try {
      text = commentText(typeof note.content === 'string' ? note.content : '');
    } catch (error) {
      if (error instanceof BadInput) return;
      throw error;
    }
    const [updated] = await this.rows<CommentRow>(
      `UPDATE comments c SET text = :text, updated_at = now() WHERE c.id = :id RETURNING ${COMMENT_COLUMNS}`,
      { id: comment.id, text },
    );
    if (!updated) return;
    await publishDiscussionComment(this.options.pubsub, this.logger, {
      discussionId: discussion.id,
      commentId: updated.id,
    });
    await this.sendMessage('Update', discussion, updated);
  }

  /** A discussion message deleted by its remote author or a moderator of its group: a tombstone stays. */
  private async receiveDelete({ activity, signer }: InboxContext): Promise<void> {
    const url = idOf(activity.object);
    if (!url || signer.local) return;
    if (await this.remote.hasLocalMembers(signer)) return this.remote.remove(signer, url);
    const comment = await this.commentByUrl(url);
    if (!comment || comment.deletedAt) return;
    const discussion = await this.discussionOfComment(comment.id);
    if (!discussion) return;
    const own = comment.actorId === signer.id && !comment.local;
    if (!own && !isModeratorRole(await this.roleOf(signer.id, discussion.actorId))) return;
    const [deleted] = await this.rows<CommentRow>(
      `UPDATE comments c SET text = NULL, deleted_at = now(), updated_at = now()
        WHERE c.id = :id AND c.deleted_at IS NULL RETURNING ${COMMENT_COLUMNS}`,
      { id: comment.id },
    );
    if (!deleted) return;
    const group = await this.options.actors.findById(discussion.actorId);
    if (group?.local) await this.announce(group, url, signer.id);
  }

  /**
   * Where a received Note belongs: a discussion known by its `context` (or by the message it
   * answers); or, for a named Note attributed to a local group, the discussion it opens.
   */
  private async discussionOf(
    note: Record<string, unknown>,
  ): Promise<{ discussion: DiscussionRow } | { groupId: string; url: string } | null> {
    const context = idOf(note.context);
    if (context) {
      const [discussion] = await this.rows<DiscussionRow>(
        `SELECT ${DISCUSSION_COLUMNS} FROM discussions d WHERE d.url = :url`,
        { url: context },
      );
      if (discussion) return { discussion };
    }
    const inReplyTo = idOf(note.inReplyTo);
    if (inReplyTo) {
      const parent = await this.commentByUrl(inReplyTo);
      const discussion = parent ? await this.discussionOfComment(parent.id) : null;
      return discussion ? { discussion } : null;
    }
    const attributedTo = idOf(Array.isArray(note.attributedTo) ? note.attributedTo[0] : note.attributedTo);
    const group = attributedTo ? await this.options.actors.findByUri(attributedTo) : null;
    // A new discussion's URL is the opener's: it must live where the message does.
    if (!context || !group?.local || group.type !== 'Group' || !sameOrigin(context, idOf(note) ?? ''))
      return null;
    return { groupId: group.id, url: context };
  }

  // ---- Reads ------------------------------------------------------------------------------------------

  /** The approved remote members of a group (one delivery each, grouped per shared inbox by the pipeline). */
  private async remoteMembers(groupId: string, except: string | null): Promise<string[]> {
    const rows = await this.rows<{ actorId: string }>(
      `SELECT m.actor_id::text AS "actorId" FROM members m JOIN actors a ON a.id = m.actor_id
        WHERE m.parent_id = :groupId AND m.role IN ${MEMBER_ROLES_SQL} AND a.domain IS NOT NULL
          AND m.actor_id <> :except`,
      { groupId, except: except ?? 0 },
    );
    return rows.map((row) => row.actorId);
  }

  private async actorsOf(first: string | null, second: string | null): Promise<[Actor | null, Actor | null]> {
    const [a, b] = await Promise.all([
      first ? this.options.actors.findById(first) : null,
      second ? this.options.actors.findById(second) : null,
    ]);
    return [a, b];
  }

  private async resourceSource(resource: ResourceRow): Promise<{
    group: Actor | null;
    creator: Actor | null;
    parentUrl: string | null;
    object: Record<string, unknown>;
  }> {
    const [group, creator] = await this.actorsOf(resource.groupId, resource.creatorId);
    const parentUrl = resource.parentId ? await this.resourceUrl(resource.parentId) : null;
    const object = group ? resourceObject(resource, group, creator, parentUrl) : {};
    return { group, creator, parentUrl, object };
  }

  private async resourceUrl(id: string): Promise<string | null> {
    const [row] = await this.rows<ResourceRow>(
      `SELECT ${RESOURCE_COLUMNS} FROM resources r WHERE r.id = :id`,
      {
        id,
      },
    );
    return row?.url ?? null;
  }

  private async comment(id: string): Promise<CommentRow | null> {
    const [row] = await this.rows<CommentRow>(`SELECT ${COMMENT_COLUMNS} FROM comments c WHERE c.id = :id`, {
      id,
    });
    return row ?? null;
  }

  private async commentByUrl(url: string): Promise<CommentRow | null> {
    const [row] = await this.rows<CommentRow>(
      `SELECT ${COMMENT_COLUMNS} FROM comments c WHERE c.url = :url`,
      {
        url,
      },
    );
    return row ?? null;
  }

  private async discussionOfComment(commentId: string): Promise<DiscussionRow | null> {
    const [row] = await this.rows<DiscussionRow>(
      `SELECT ${DISCUSSION_COLUMNS} FROM discussions d JOIN comments c ON c.discussion_id = d.id WHERE c.id = :id`,
      { id: commentId },
    );
    return row ?? null;
  }

  private async roleOf(actorId: string, groupId: string): Promise<MemberRole | null> {
    const [row] = await this.rows<{ role: MemberRole }>(
      'SELECT role FROM members WHERE parent_id = :groupId AND actor_id = :actorId',
      { groupId, actorId },
    );
    return row?.role ?? null;
  }

  private async isMember(actorId: string, groupId: string): Promise<boolean> {
    const role = await this.roleOf(actorId, groupId);
    return role !== null && MEMBER_OF_GROUP.includes(role);
  }

  private rows<T extends object>(sql: string, replacements: Record<string, unknown>): Promise<T[]> {
    return this.options.sequelize.query<T>(sql, { type: QueryTypes.SELECT, replacements });
  }

  /** Federation follows a committed write: its failure is logged, never the request's. */
  private safely(what: string, run: () => Promise<void>): Promise<void> {
    return logFailure(this.logger, `federation of a ${what} failed`, run);
  }
}

/** Out to others: not a draft, and its publication time has come. */
function postIsOut(post: PostRow, now: Date): boolean {
  return !post.draft && post.publishAt !== null && post.publishAt.getTime() <= now.getTime();
}

function objectOf(activity: Record<string, unknown>): Record<string, unknown> | null {
  const object = activity.object;
  return typeof object === 'object' && object !== null && !Array.isArray(object)
    ? (object as Record<string, unknown>)
    : null;
}

/** Who wrote a group object: its `actor` (the reference's), else its `attributedTo`. */
function authorOf(object: Record<string, unknown>): string | null {
  return (
    idOf(object.actor) ??
    idOf(Array.isArray(object.attributedTo) ? object.attributedTo[0] : object.attributedTo)
  );
}

function dateOf(value: unknown): Date | null {
  if (typeof value !== 'string') return null;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
}
