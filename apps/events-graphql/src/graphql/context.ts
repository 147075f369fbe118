import type { SessionUser } from '@agora/auth';
import type { AppContext } from '../context.js';
import type { RequestUploads } from '../http/uploads.js';
import { createActivityLoaders, type ActivityLoaders } from '../modules/activities/activity.loaders.js';
import { createCommentLoaders, type CommentLoaders } from '../modules/comments/comment.loaders.js';
import {
  createConversationLoaders,
  type ConversationLoaders,
} from '../modules/conversations/conversation.loaders.js';
import {
  createDiscussionLoaders,
  type DiscussionLoaders,
} from '../modules/discussions/discussion.loaders.js';
import { createEventLoaders, type EventLoaders } from '../modules/events/event.loaders.js';
import { createFollowerLoaders, type FollowerLoaders } from '../modules/followers/follower.loaders.js';
import { createGroupLoaders, type GroupLoaders } from '../modules/groups/group.loaders.js';
import { createMemberLoaders, type MemberLoaders } from '../modules/members/member.loaders.js';
import { createMediaLoaders, type MediaLoaders } from '../modules/media/media.loaders.js';
import {
  createParticipationLoaders,
  type ParticipationLoaders,
} from '../modules/participations/participation.loaders.js';
import { createPostLoaders, type PostLoaders } from '../modules/posts/post.loaders.js';
import { createPersonLoaders, type PersonLoaders } from '../modules/persons/person.loaders.js';
import { createResourceLoaders, type ResourceLoaders } from '../modules/resources/resource.loaders.js';
import { createTodoLoaders, type TodoLoaders } from '../modules/todos/todo.loaders.js';
import { createUserLoaders, type UserLoaders } from '../modules/users/user.loaders.js';
import { ListBudget, type BudgetedContext } from './limits.js';
import type { Caller } from './pipeline.js';

/** What every resolver receives. Created per operation, so it must stay cheap: derive lazily. */
export interface GraphQLContext extends BudgetedContext {
  readonly app: AppContext;
  /** The caller's preferred locale (BCP 47), from Accept-Language; "en" by default. */
  readonly locale: string;
  /** The caller's address (behind trusted proxies: the client's), for rate limits and sign-in records. */
  readonly ip: string | undefined;
  /** The user id of a verified access token; undefined for anonymous callers. */
  readonly userId: string | undefined;
  /** The session that access token belongs to (a password change keeps it); undefined if unknown. */
  readonly sessionId: string | undefined;
  /** The files of a multipart request, by part name (Upload values name them). */
  readonly uploads?: RequestUploads | undefined;
  /** The DataLoaders of this operation, by module; each module's are built on first use. */
  readonly loaders: RequestLoaders;
  /** The signed-in user (its session projection), loaded at most once per operation; null when anonymous or gone. */
  viewer(): Promise<SessionUser | null>;
  /**
   * Starts another execution on this context: each event of a subscription runs with fresh
   * DataLoaders and a fresh look at the viewer, never with what an earlier event cached.
   */
  renew(): void;
}

/** One operation's DataLoaders: batches and caches live exactly as long as the operation. */
export class RequestLoaders {
  private personLoaders: PersonLoaders | undefined;
  private mediaLoaders: MediaLoaders | undefined;
  private userLoaders: UserLoaders | undefined;
  private eventLoaders: EventLoaders | undefined;
  private participationLoaders: ParticipationLoaders | undefined;
  private commentLoaders: CommentLoaders | undefined;
  private groupLoaders: GroupLoaders | undefined;
  private memberLoaders: MemberLoaders | undefined;
  private followerLoaders: FollowerLoaders | undefined;
  private conversationLoaders: ConversationLoaders | undefined;
  private resourceLoaders: ResourceLoaders | undefined;
  private todoLoaders: TodoLoaders | undefined;
  private postLoaders: PostLoaders | undefined;
  private discussionLoaders: DiscussionLoaders | undefined;
  private activityLoaders: ActivityLoaders | undefined;

  constructor(private readonly app: AppContext) {}

  get persons(): PersonLoaders {
    this.personLoaders ??= createPersonLoaders(this.app);
    return this.personLoaders;
  }

  get media(): MediaLoaders {
    this.mediaLoaders ??= createMediaLoaders(this.app);
    return this.mediaLoaders;
  }

  get users(): UserLoaders {
    this.userLoaders ??= createUserLoaders(this.app);
    return this.userLoaders;
  }

  get events(): EventLoaders {
    this.eventLoaders ??= createEventLoaders(this.app);
    return this.eventLoaders;
  }

  get participations(): ParticipationLoaders {
    this.participationLoaders ??= createParticipationLoaders(this.app);
    return this.participationLoaders;
  }

  get comments(): CommentLoaders {
    this.commentLoaders ??= createCommentLoaders(this.app);
    return this.commentLoaders;
  }

  get groups(): GroupLoaders {
    this.groupLoaders ??= createGroupLoaders(this.app);
    return this.groupLoaders;
  }

  get members(): MemberLoaders {
    this.memberLoaders ??= createMemberLoaders(this.app);
    return this.memberLoaders;
  }

  get followers(): FollowerLoaders {
    this.followerLoaders ??= createFollowerLoaders(this.app);
    return this.followerLoaders;
  }

  get conversations(): ConversationLoaders {
    this.conversationLoaders ??= createConversationLoaders(this.app);
    return this.conversationLoaders;
  }

  get resources(): ResourceLoaders {
    this.resourceLoaders ??= createResourceLoaders(this.app);
    return this.resourceLoaders;
  }

  get todos(): TodoLoaders {
    this.todoLoaders ??= createTodoLoaders(this.app);
    return this.todoLoaders;
  }

  get posts(): PostLoaders {
    this.postLoaders ??= createPostLoaders(this.app);
    return this.postLoaders;
  }

  get discussions(): DiscussionLoaders {
    this.discussionLoaders ??= createDiscussionLoaders(this.app);
    return this.discussionLoaders;
  }

  get activities(): ActivityLoaders {
    this.activityLoaders ??= createActivityLoaders(this.app);
    return this.activityLoaders;
  }
}

export class RequestContext implements GraphQLContext {
  private preferredLocale: string | undefined;
  private loadedViewer: Promise<SessionUser | null> | undefined;
  private requestLoaders: RequestLoaders | undefined;
  readonly listBudget: ListBudget;

  /** Built by `GraphQLPipeline.createContext`, the one factory of every wire. */
  constructor(
    readonly app: AppContext,
    private readonly caller: Caller,
    maxListItems: number,
  ) {
    this.listBudget = new ListBudget(maxListItems);
  }

  get locale(): string {
    this.preferredLocale ??= preferredLocale(this.caller.headers['accept-language']);
    return this.preferredLocale;
  }

  get ip(): string | undefined {
    return this.caller.ip;
  }

  get userId(): string | undefined {
    return this.caller.userId;
  }

  get sessionId(): string | undefined {
    return this.caller.sessionId;
  }

  get uploads(): RequestUploads | undefined {
    return this.caller.uploads;
  }

  get loaders(): RequestLoaders {
    this.requestLoaders ??= new RequestLoaders(this.app);
    return this.requestLoaders;
  }

  viewer(): Promise<SessionUser | null> {
    const { userId } = this.caller;
    this.loadedViewer ??= userId === undefined ? Promise.resolve(null) : this.app.users.findSession(userId);
    return this.loadedViewer;
  }

  renew(): void {
    this.requestLoaders = undefined;
    this.loadedViewer = undefined;
  }
}

/** The highest-weighted valid language tag of an Accept-Language header. */
export function preferredLocale(header: string | undefined): string {
  if (!header) return 'en';
  let best = 'en';
  let bestWeight = 0;
  for (const part of header.split(',')) {
    const [tag = '', ...params] = part.trim().split(';');
    const q = params.find((param) => param.trim().startsWith('q='));
    const weight = q === undefined ? 1 : Number(q.trim().slice(2));
    if (tag === '*' || !(weight > bestWeight)) continue;
    try {
      const [canonical] = Intl.getCanonicalLocales(tag);
      if (canonical) {
        best = canonical;
        bestWeight = weight;
      }
    } catch {
      // Not a language tag: ignored.
    }
  }
  return best;
}
