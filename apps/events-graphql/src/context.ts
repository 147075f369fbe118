import { EventAnswerGeneration } from './modules/events/event-answer-cache.js';
import { JwtSessions, RateLimiter, UserStore } from '@agora/auth';
import { PeriodicJobs, type JobQueue, type Logger, type Mailer, type PubSub } from '@agora/core';
import { ActorStore, type Federation } from '@agora/federation';
import { createInfrastructure } from '@agora/db';
import {
  createMediaPipeline,
  createMediaStorage,
  mediaLimitsFromUploadLimits,
  RemoteMediaCache,
  RemoteMediaJobs,
} from '@agora/media';
import { join } from 'node:path';
import { QueryTypes, type Sequelize } from 'sequelize';
import type { EventsConfig } from './config/config.js';
import { eventsActorUrls } from './federation/actor-urls.js';
import { EventFederation } from './federation/events.federation.js';
import { GroupContentFederation } from './federation/group-content.federation.js';
import { eventsFederation } from './federation/federation.js';
import type { GroupCollectionSource } from './federation/group-collection-source.js';
import { groupMembershipCollections } from './federation/group-collections.js';
import { groupContentCollectionSources } from './federation/group-content-collections.js';
import { GroupMemberFederation } from './federation/group-members.federation.js';
import { maintenanceJobs } from './jobs/maintenance.js';
import { defineAdminSettingModel } from './modules/config/admin-setting.model.js';
import { InstanceConfigService } from './modules/config/config.service.js';
import { LanguageService } from './modules/languages/language.service.js';
import { defineMediaModel } from './modules/media/media.model.js';
import { MediaService } from './modules/media/media.service.js';
import { StatisticsService } from './modules/statistics/statistics.service.js';
import { resolveJwtSecret } from './modules/users/jwt-secret.js';
import { defineUserSettingsModel } from './modules/users/user-settings.model.js';
import { UserService } from './modules/users/user.service.js';
import { ActivitySettingService } from './modules/users/activity-setting.service.js';
import { FeedTokenService } from './modules/users/feed-token.service.js';
import { PersonService } from './modules/persons/person.service.js';
import { EventService } from './modules/events/event.service.js';
import { ActionLogStore } from './modules/action-logs/action-log.store.js';
import { CommentService } from './modules/comments/comment.service.js';
import { AnonymousActor } from './modules/participations/anonymous-actor.js';
import { ParticipationMails } from './modules/participations/participation-mails.js';
import { ParticipationService } from './modules/participations/participation.service.js';
import { AnnouncementMails } from './modules/announcements/announcement-mails.js';
import { exportJobs } from './modules/exports/exports.jobs.js';
import { ParticipantExportService } from './modules/exports/participant-export.service.js';
import { GroupAnswerGeneration } from './modules/groups/group-answer-cache.js';
import { GroupService } from './modules/groups/group.service.js';
import { MemberMails } from './modules/members/member-mails.js';
import { MemberService } from './modules/members/member.service.js';
import { GroupRoles } from './modules/members/group-roles.js';
import { isOnlyAdministratorSomewhere } from './modules/members/member-roles.js';
import { FollowService } from './modules/followers/follow.service.js';
import { ActivityService } from './modules/activities/activity.service.js';
import { DiscussionService } from './modules/discussions/discussion.service.js';
import { PostService } from './modules/posts/post.service.js';
import { contributeGroupStatistics } from './modules/groups/group-statistics.js';
import { ConversationMails } from './modules/conversations/conversation-mails.js';
import { ConversationService } from './modules/conversations/conversation.service.js';
import { LinkPreviews } from './modules/resources/link-preview.js';
import { ResourceService } from './modules/resources/resource.service.js';
import { TodoService } from './modules/todos/todo.service.js';
import { appVersion } from './version.js';

/** The reference's `iss` claim, so tokens look the same to its clients. */
const JWT_ISSUER = 'mobilizon';

/** Everything the service's code may use, built once per process (or per test server). */
export interface AppServices {
  logger: Logger;
  sequelize: Sequelize;
  queue: JobQueue;
  pubsub: PubSub;
  mailer: Mailer;
  /** Changes whenever anything an anonymous event page shows is written (the answer cache's token). */
  eventAnswers: EventAnswerGeneration;
  /** Changes whenever anything the group page shows is written; with its windows of time (ADR 0046). */
  groupAnswers: GroupAnswerGeneration;
  instanceConfig: InstanceConfigService;
  statistics: StatisticsService;
  languages: LanguageService;
  sessions: JwtSessions;
  rateLimiter: RateLimiter;
  users: UserService;
  /** Private feed tokens of users and their profiles. */
  feedTokens: FeedTokenService;
  /** Users' activity notification settings. */
  activitySettings: ActivitySettingService;
  /** The credentials store under `users` (maintenance jobs, admin tools). */
  accounts: UserStore;
  /** Persons and groups, local and remote: the federation package's one actor model. */
  actors: ActorStore;
  /** Discovery, inboxes, remote actors and the delivery pipeline (packages/federation). */
  federation: Federation;
  /** Events, comments and participation over ActivityPub (Event, Note, Join/Accept/Reject/Leave). */
  eventFederation: EventFederation;
  /** Group memberships over ActivityPub (Join, Leave, Accept, Reject, Invite, Remove, Update of Member). */
  groupMemberFederation: GroupMemberFederation;
  /** Group posts, discussions, resources and todos over ActivityPub (Article, Note, Document, Todo…). */
  groupContentFederation: GroupContentFederation;
  /** The sources of a group's ActivityPub collections (`/@group/<name>`), one per kind of content. */
  groupCollections: readonly GroupCollectionSource[];
  /** Profiles: the Person actors owned by local users. */
  persons: PersonService;
  /** Events organized by profiles: their rules, reads and listing. */
  events: EventService;
  /** Who takes part in events: joins, capacity, anonymous participation, approvals. */
  participations: ParticipationService;
  /** The instance's anonymous actor (`config.anonymous.actorId`), created on first use. */
  anonymousActor: AnonymousActor;
  /** Comments under events: threads, moderation modes, tombstones. */
  comments: CommentService;
  /** Exports of events' participant lists (CSV, PDF, ODS), kept an hour for their organizer. */
  participantExports: ParticipantExportService;
  /** Announcements (organizers' comments flagged so) e-mailed to the events' participants. */
  announcements: AnnouncementMails;
  /** The moderation log (`action_logs`). */
  actionLogs: ActionLogStore;
  /** Groups: the Group actors with their visibility, openness and address. */
  groups: GroupService;
  /** Members of groups: joins, invitations, approvals, roles. */
  members: MemberService;
  /** The e-mails of memberships (invitations, approvals, requests and their digests). */
  memberMails: MemberMails;
  /** Profiles following groups (the one actor model's follows). */
  groupFollows: FollowService;
  /** Private conversations between profiles, and organizers' messages to participants. */
  conversations: ConversationService;
  /** The e-mails of private messages. */
  conversationMails: ConversationMails;
  /** Link previews (OpenGraph, Twitter card, oEmbed, favicon) read through the guarded fetch. */
  linkPreviews: LinkPreviews;
  /** Groups' shared folders and links. */
  resources: ResourceService;
  /** Groups' todo lists and todos. */
  todos: TodoService;
  /** Group posts: members write them, visibility and drafts decide who reads them. */
  posts: PostService;
  /** Group discussions: members' threads of comments. */
  discussions: DiscussionService;
  /** The group activity stream, recorded by members, groups, posts, discussions and group events. */
  activities: ActivityService;
  /** Uploaded media: the pipeline, its storage (files served at /media) and their rows. */
  media: MediaService;
  /** Local copies of remote persons' avatars and banners (job `media.cache-remote`). */
  remoteMedia: { cache: RemoteMediaCache; jobs: RemoteMediaJobs };
  /** Hourly/daily housekeeping on the job queue; started by worker and all roles. */
  jobs: PeriodicJobs;
  /** The time rate-limit windows are computed from; tests pin it instead of sleeping. */
  clock: () => Date;
}

/** The composition root: the service's parts, built and wired once by `AppContext.fromConfig`. */
export type AppContext = Readonly<AppServices> & {
  readonly config: EventsConfig;
  /** Releases everything the context opened; safe to call more than once. */
  close(): Promise<void>;
};

export const AppContext = {
  /** Builds the context; `overrides` replace parts (tests, tools). Needs `config.db.url` (see openDatabase). */
  async fromConfig(config: EventsConfig, overrides: Partial<AppServices> = {}): Promise<AppContext> {
    // Before anything is opened: a missing or unreadable secret must not leave connections behind.
    const jwtSecret = overrides.sessions ? undefined : await resolveJwtSecret(config);
    const infrastructure = createInfrastructure(config, overrides);
    const { logger, sequelize, pubsub } = infrastructure;
    const actorUrls = eventsActorUrls(config.http.publicUrl);
    const instanceConfig =
      overrides.instanceConfig ??
      new InstanceConfigService({
        env: config.instance,
        domain: config.http.domain,
        version: appVersion(),
        sequelize,
        model: defineAdminSettingModel(sequelize),
        pubsub,
        logger,
        // Created by then: `start()` runs after the whole context is built.
        anonymousActorId: () => anonymousActor.id(),
      });
    infrastructure.onClose(() => instanceConfig.stop());
    const eventAnswers = overrides.eventAnswers ?? new EventAnswerGeneration({ sequelize });
    const groupAnswers =
      overrides.groupAnswers ?? new GroupAnswerGeneration({ sequelize, domain: config.http.domain });
    const clock = overrides.clock ?? (() => new Date());
    const sessions =
      overrides.sessions ??
      new JwtSessions({ sequelize, secret: jwtSecret!, issuer: JWT_ISSUER, now: clock });
    const rateLimiter =
      overrides.rateLimiter ??
      new RateLimiter(sequelize, { logger, now: clock, safelist: config.rateLimits.safelist });
    const statistics = overrides.statistics ?? defaultStatistics(config, sequelize, logger);
    const store =
      overrides.accounts ??
      new UserStore({ sequelize, now: clock, passwordHashParams: config.auth.passwordHash });
    const actors =
      overrides.actors ??
      new ActorStore({
        sequelize,
        urls: actorUrls,
        queue: infrastructure.queue,
        now: clock,
      });
    const users =
      overrides.users ??
      new UserService({
        store,
        sessions,
        limiter: rateLimiter,
        mailer: infrastructure.mailer,
        settingsModel: defineUserSettingsModel(sequelize),
        registrationPolicy: () => ({
          open: instanceConfig.settings().registrationsOpen,
          allowlist: config.instance.registrationEmailAllowlist,
          denylist: config.instance.registrationEmailDenylist,
        }),
        publicUrl: config.http.publicUrl,
        instanceName: () => instanceConfig.settings().instanceName,
        actors,
      });
    const federation = overrides.federation ?? eventsFederation(config, infrastructure, actors);
    infrastructure.onClose(async () => federation.close());
    const persons =
      overrides.persons ??
      new PersonService({
        sequelize,
        actors,
        accounts: store,
        domain: config.http.domain,
        onlyGroupAdministrator: (actorId, transaction) =>
          isOnlyAdministratorSomewhere(sequelize, actorId, transaction),
      });
    const media = overrides.media ?? defaultMedia(config, sequelize, actors, logger);
    const remoteMedia =
      overrides.remoteMedia ??
      defaultRemoteMedia(config, sequelize, infrastructure.queue, federation, media, logger);
    const anonymousActor = overrides.anonymousActor ?? new AnonymousActor(actors, actorUrls);
    const participantExports =
      overrides.participantExports ??
      defaultParticipantExports(config, sequelize, anonymousActor, clock, logger);
    const jobs =
      overrides.jobs ??
      new PeriodicJobs({
        queue: infrastructure.queue,
        logger: logger.child({ component: 'jobs' }),
        clock,
        jobs: [
          ...maintenanceJobs({ accounts: store, rateLimiter, sessions, media }),
          ...federation.maintenanceJobs(),
          ...exportJobs(participantExports),
        ],
      });
    const { queue, mailer } = infrastructure;
    const eventFederation =
      overrides.eventFederation ??
      new EventFederation({
        sequelize,
        actors,
        federation,
        media,
        logger,
        pubsub,
        publicUrl: config.http.publicUrl,
        clock,
      });
    const participations =
      overrides.participations ??
      new ParticipationService({
        sequelize,
        actors,
        anonymousActor,
        anonymous: config.instance.anonymous.participation,
        pubsub,
        queue: infrastructure.queue,
        logger,
        mails: new ParticipationMails({
          sequelize,
          mailer,
          publicUrl: config.http.publicUrl,
          instanceName: () => instanceConfig.settings().instanceName,
          logger,
        }),
        hooks: eventFederation.participationHooks(),
      });
    // Remote events, comments and joins reach the services through the inbox (after both exist).
    if (!overrides.eventFederation) eventFederation.registerInbox(participations);
    const groupContentFederation =
      overrides.groupContentFederation ??
      new GroupContentFederation({
        sequelize,
        actors,
        federation,
        logger,
        pubsub,
        publicUrl: config.http.publicUrl,
        queue: infrastructure.queue,
        clock,
      });
    const actionLogs = overrides.actionLogs ?? new ActionLogStore(sequelize);
    const announcements =
      overrides.announcements ??
      new AnnouncementMails({
        sequelize,
        queue,
        mailer,
        instanceName: () => instanceConfig.settings().instanceName,
        logger: logger.child({ component: 'announcements' }),
      });
    const activities = overrides.activities ?? new ActivityService({ sequelize, logger });
    const groups =
      overrides.groups ??
      new GroupService({
        activities,
        sequelize,
        actors,
        domain: config.http.domain,
        publicUrl: config.http.publicUrl,
        onlyAdminCanCreateGroups: () => config.instance.restrictions.onlyAdminCanCreateGroups,
      });
    const memberMails =
      overrides.memberMails ??
      new MemberMails({
        sequelize,
        mailer,
        queue,
        publicUrl: config.http.publicUrl,
        instanceName: () => instanceConfig.settings().instanceName,
        logger,
      });
    const groupMemberFederation =
      overrides.groupMemberFederation ??
      new GroupMemberFederation({ sequelize, actors, federation, logger, publicUrl: config.http.publicUrl });
    const members =
      overrides.members ??
      new MemberService({
        sequelize,
        actors,
        groups,
        pubsub,
        logger,
        mails: memberMails,
        activities,
        publicUrl: config.http.publicUrl,
        domain: config.http.domain,
        hooks: groupMemberFederation.memberHooks(),
      });
    // Remote joins, answers, invitations, removals and role updates of groups (ADR 0041).
    if (!overrides.groupMemberFederation) groupMemberFederation.registerInbox(members);
    // One line per module that owns a kind of group content (posts, discussions, resources, todos).
    const groupCollections = overrides.groupCollections ?? [
      ...groupMembershipCollections(sequelize, eventFederation, config.http.publicUrl),
      ...groupContentCollectionSources({ sequelize, actors }),
    ];
    const conversationMails =
      overrides.conversationMails ??
      new ConversationMails({
        sequelize,
        queue,
        mailer,
        publicUrl: config.http.publicUrl,
        instanceName: () => instanceConfig.settings().instanceName,
        logger: logger.child({ component: 'conversations' }),
      });
    const conversations =
      overrides.conversations ??
      new ConversationService({
        sequelize,
        actors,
        pubsub,
        logger,
        publicUrl: config.http.publicUrl,
        domain: config.http.domain,
        anonymousActorId: () => anonymousActor.id(),
        afterMessage: (commentId) => conversationMails.messagePosted(commentId),
      });
    const linkPreviews = overrides.linkPreviews ?? new LinkPreviews({ fetch: federation.fetch });
    const discussions =
      overrides.discussions ??
      new DiscussionService({
        sequelize,
        roles: new GroupRoles(sequelize),
        activities,
        pubsub,
        logger,
        publicUrl: config.http.publicUrl,
        hooks: groupContentFederation.discussionHooks(),
      });
    // Remote members' discussion messages go through the discussions service's own rules.
    if (!overrides.groupContentFederation) groupContentFederation.registerInbox(discussions);
    const services: AppServices = {
      logger,
      sequelize,
      queue,
      pubsub,
      mailer,
      eventAnswers,
      groupAnswers,
      instanceConfig,
      statistics,
      languages: overrides.languages ?? new LanguageService(),
      sessions,
      rateLimiter,
      users,
      feedTokens: overrides.feedTokens ?? new FeedTokenService(sequelize),
      activitySettings: overrides.activitySettings ?? new ActivitySettingService(sequelize),
      accounts: store,
      actors,
      federation,
      eventFederation,
      groupMemberFederation,
      groupContentFederation,
      groupCollections,
      persons,
      events:
        overrides.events ??
        new EventService({
          sequelize,
          actors,
          actionLogs,
          media,
          queue,
          clock,
          publicUrl: config.http.publicUrl,
          longEventDays: config.instance.longEventDays,
          instanceActorUri: `${config.http.publicUrl}/relay`,
          afterUpdate: async (before, after) => {
            await participations.eventUpdated(before, after);
            await eventFederation.eventUpdated(before, after);
            // A first publication is told by afterPublish (event_created).
            if (before.publishedAt !== null && after.publishedAt !== null) {
              await activities.event('event_updated', after);
            }
          },
          afterPublish: async (event) => {
            await eventFederation.eventPublished(event);
            await activities.event('event_created', event);
          },
          beforeDelete: async (event) => {
            const deleted = await eventFederation.eventDeleting(event);
            return async () => {
              await deleted();
              await activities.event('event_deleted', event);
            };
          },
          groups: new GroupRoles(sequelize),
          onlyGroupsCanCreateEvents: () => config.instance.restrictions.onlyGroupsCanCreateEvents,
        }),
      participations,
      anonymousActor,
      comments:
        overrides.comments ??
        new CommentService({
          sequelize,
          actors,
          actionLogs,
          publicUrl: config.http.publicUrl,
          afterCreate: (comment) => announcements.commentCreated(comment),
          afterChange: async (change, comment, before) => {
            await eventFederation.commentChanged(change, comment, before);
            await groupContentFederation.commentChanged(change, comment, before);
          },
        }),
      participantExports,
      announcements,
      actionLogs,
      groups,
      members,
      memberMails,
      groupFollows: overrides.groupFollows ?? new FollowService({ sequelize, actors, groups, federation }),
      conversations,
      conversationMails,
      linkPreviews,
      resources:
        overrides.resources ??
        new ResourceService({
          sequelize,
          previews: linkPreviews,
          logger: logger.child({ component: 'resources' }),
          publicUrl: config.http.publicUrl,
          hooks: groupContentFederation.resourceHooks(),
        }),
      todos:
        overrides.todos ??
        new TodoService({
          sequelize,
          publicUrl: config.http.publicUrl,
          hooks: groupContentFederation.todoHooks(),
        }),
      posts:
        overrides.posts ??
        new PostService({
          sequelize,
          media,
          roles: new GroupRoles(sequelize),
          activities,
          publicUrl: config.http.publicUrl,
          hooks: groupContentFederation.postHooks(),
        }),
      discussions,
      activities,
      media,
      remoteMedia,
      jobs,
      clock,
    };
    return Object.freeze({ ...services, config, close: () => infrastructure.close() });
  },
};

/** Media on disk (`DATA_DIR/media/events`) or in S3, served at `/media`; pictures only (no ffmpeg). */
function defaultMedia(
  config: EventsConfig,
  sequelize: Sequelize,
  actors: ActorStore,
  logger: Logger,
): MediaService {
  const storage = createMediaStorage({
    dir: join(config.dataDir, 'media', 'events'),
    s3: config.media.s3,
    baseUrl: `${config.http.publicUrl}/media`,
  });
  const pipeline = createMediaPipeline({
    storage,
    limits: mediaLimitsFromUploadLimits(config.instance.uploadLimits),
    ffmpegPath: null,
  });
  const model = defineMediaModel(sequelize);
  return new MediaService({
    sequelize,
    model,
    pipeline,
    storage,
    actors,
    logger: logger.child({ component: 'media' }),
  });
}

/**
 * Participant exports in their own storage (`DATA_DIR/exports/events`, or the S3 bucket under
 * `exports/`): not the media storage, whose files `/media` serves to anyone.
 */
function defaultParticipantExports(
  config: EventsConfig,
  sequelize: Sequelize,
  anonymousActor: AnonymousActor,
  clock: () => Date,
  logger: Logger,
): ParticipantExportService {
  const storage = createMediaStorage({
    dir: join(config.dataDir, 'exports', 'events'),
    s3: config.media.s3,
    baseUrl: `${config.http.publicUrl}/exports`,
  });
  return new ParticipantExportService({
    sequelize,
    storage,
    formats: () => config.instance.exportFormats,
    anonymousActorId: () => anonymousActor.id(),
    clock,
    logger: logger.child({ component: 'exports' }),
  });
}

/** Remote persons' pictures, copied through the guarded client into the media storage off the request path. */
function defaultRemoteMedia(
  config: EventsConfig,
  sequelize: Sequelize,
  queue: JobQueue,
  federation: Federation,
  media: MediaService,
  logger: Logger,
): { cache: RemoteMediaCache; jobs: RemoteMediaJobs } {
  const limits = mediaLimitsFromUploadLimits(config.instance.uploadLimits);
  const cache = new RemoteMediaCache({
    sequelize,
    storage: media.storage,
    pipeline: createMediaPipeline({ storage: media.storage, limits, ffmpegPath: null }),
    limits,
    fetch: (url, { maxBodyBytes }) => federation.fetch.get(url, { maxBodyBytes, signed: false }),
    rejectsMedia: (host) => federation.domainBlocks.rejectsMedia(host),
    logger: logger.child({ component: 'remote-media' }),
  });
  const jobs = new RemoteMediaJobs({ cache, queue, logger });
  federation.remoteActors.onActorStored((actor) => jobs.enqueueActor(actor));
  return { cache, jobs };
}

/** The statistics with the counters of this module's tables; other modules add theirs when they land. */
function defaultStatistics(config: EventsConfig, sequelize: Sequelize, logger: Logger): StatisticsService {
  const statistics = new StatisticsService({ ttlMs: config.statistics.cacheSeconds * 1000, logger });
  // The reference counts confirmed accounts that are not disabled.
  statistics.contribute('numberOfUsers', async () => {
    const [row] = await sequelize.query<{ count: number }>(
      'SELECT count(*)::int AS count FROM users WHERE confirmed_at IS NOT NULL AND NOT disabled',
      { type: QueryTypes.SELECT },
    );
    return row?.count ?? 0;
  });
  contributeGroupStatistics(statistics, sequelize);
  // The reference counts the listed comments under events, tombstones included.
  for (const [key, where] of [
    ['numberOfComments', ''],
    ['numberOfLocalComments', 'AND local'],
  ] as const) {
    statistics.contribute(key, async () => {
      const [row] = await sequelize.query<{ count: number }>(
        `SELECT count(*)::int AS count FROM comments
          WHERE event_id IS NOT NULL AND visibility IN ('PUBLIC', 'UNLISTED') ${where}`,
        { type: QueryTypes.SELECT },
      );
      return row?.count ?? 0;
    });
  }
  return statistics;
}
