import { randomUUID } from 'node:crypto';
import type { Sequelize } from 'sequelize';
import { RateLimiter, UserStore } from '@agora/auth';
import { PeriodicJobs, type JobQueue, type Logger, type Mailer, type PubSub } from '@agora/core';
import type { Federation, PushHub } from '@agora/federation';
import { ActorStore } from '@agora/federation';
import { createInfrastructure } from '@agora/db';
import { createMediaPipeline, createMediaStorage, type MediaPipeline, type MediaStorage } from '@agora/media';
import type { MicroblogConfig } from './config/config.js';
import { microblogActorUrls } from './federation/actor-urls.js';
import { microblogFederation, microblogPushHub } from './federation/federation.js';
import { maintenanceJobs } from './jobs/maintenance.js';
import { AccountService } from './modules/accounts/account.service.js';
import { AnnouncementService } from './modules/announcements/announcement.service.js';
import { oauthUserTokens } from './modules/accounts/user-token-issuer.js';
import { MediaAttachmentService } from './modules/media/media-attachment.service.js';
import { ProfileImages } from './modules/media/profile-images.js';
import { RelationshipService } from './modules/relationships/index.js';
import { RemoteMedia } from './modules/remote-media/index.js';
import { ConversationService } from './modules/conversations/conversation.service.js';
import { ListService } from './modules/lists/list.service.js';
import { MarkerService } from './modules/markers/marker.service.js';
import { PollService } from './modules/polls/poll.service.js';
import { PreviewCardService } from './modules/preview-cards/preview-card.service.js';
import { PushService } from './modules/push/push.service.js';
import { resolveVapidKeys } from './modules/push/vapid-keys.js';
import { ScheduledStatusService } from './modules/scheduled-statuses/scheduled-status.service.js';
import { StatusService } from './modules/statuses/status.service.js';
import { publicObjectResolver } from './modules/search/public-objects.js';
import { SearchService } from './modules/search/search.service.js';
import { TagService } from './modules/tags/tag.service.js';
import { StatusFederation } from './modules/statuses-federation/statuses.federation.js';
import { OStatusService } from './modules/ostatus/ostatus.service.js';
import { FilterService, NotificationService } from './modules/notifications/index.js';
import { StreamingService } from './modules/streaming/streaming.service.js';
import { TimelineService } from './modules/timelines/timeline.service.js';
import { InstanceDocuments } from './modules/instance/instance-documents.js';
import { InstanceStatsRegistry } from './modules/instance/instance-stats.js';
import { InstanceService } from './modules/instance/instance.service.js';
import { contributeUsageCounters } from './modules/instance/usage-counters.js';
import { OAuthService } from './modules/oauth/oauth.service.js';
import { resolveSecretKeyBase } from './modules/oauth/secret-key-base.js';
import { TokenCipher } from './modules/oauth/token-crypto.js';
import { userPasswordVerifier } from './modules/oauth/user-password-verifier.js';
import { deriveKey, SecretBox } from './modules/sessions/keys.js';
import { SessionActivations } from './modules/sessions/session-activations.js';
import { TwoFactorService } from './modules/two-factor/two-factor.service.js';

/** Everything a request handler or job may use, built once per process by `AppContext.fromConfig`. */
export interface AppContextParts {
  config: MicroblogConfig;
  logger: Logger;
  sequelize: Sequelize;
  queue: JobQueue;
  pubsub: PubSub;
  mailer: Mailer;
  /** Where modules contribute the usage counters the instance documents publish. */
  stats: InstanceStatsRegistry;
  instance: InstanceService;
  instanceDocuments: InstanceDocuments;
  /** Credentials of local accounts (packages/auth). */
  users: UserStore;
  /** Accounts, local and remote: the federation package's one actor model. */
  actors: ActorStore;
  /** Discovery, inboxes, remote actors and the delivery pipeline (packages/federation). */
  federation: Federation;
  /** The PuSH 0.4 hub of the early API's Atom feeds. */
  pushHub: PushHub;
  /** Local accounts: sign-up, confirmation, the owner's profile, lookups. */
  accounts: AccountService;
  /** Follows, follow requests, blocks, mutes and domain blocks of local accounts. */
  relationships: RelationshipService;
  oauth: OAuthService;
  /** Where uploaded files live (disk under `config.media.dir` or S3, served under `/system`). */
  mediaStorage: MediaStorage;
  /** Checks, cleans and stores uploads (packages/media). */
  mediaPipeline: MediaPipeline;
  /** Media attachments: uploads, their processing jobs, the owner's edits. */
  media: MediaAttachmentService;
  /** Local copies of remote accounts' avatars and headers (job `media.cache-remote`). */
  remoteMedia: RemoteMedia;
  /** Statuses: posting, reading, edits, reblogs, favourites, bookmarks, pins, the home fan-out. */
  statuses: StatusService;
  /** Preview cards of statuses' first links, fetched by a job through the guarded fetch. */
  previewCards: PreviewCardService;
  /** Statuses over ActivityPub: outbound activities, the inbox handlers, the documents served. */
  statusFederation: StatusFederation;
  /** OStatus (issue 16 §6): the account Atom feeds, PuSH of new public statuses, Salmon. */
  ostatus: OStatusService;
  /** Polls on statuses: votes, and the job that closes them at their end. */
  polls: PollService;
  /** Statuses kept for later and published by a job at their time. */
  scheduledStatuses: ScheduledStatusService;
  /** Lists of followed accounts and their feeds (written by the statuses fan-out). */
  lists: ListService;
  /** Direct conversations per participant (written by the statuses fan-out). */
  conversations: ConversationService;
  /** Reading positions of the home timeline and notifications. */
  markers: MarkerService;
  /** Notifications of local accounts, made from the statuses' and follows' committed changes. */
  notifications: NotificationService;
  /** The accounts' content filters (v2 filters; v1 are their keywords), applied on reads. */
  filters: FilterService;
  /** The pages of the home, public and hashtag timelines. */
  timelines: TimelineService;
  /** Announcements administrators write; users read, dismiss and react to them. */
  announcements: AnnouncementService;
  /** Hashtags: the Tag entity, followed tags (which feed the home timeline through the fan-out). */
  tags: TagService;
  /** GET /api/v2/search: accounts, statuses (full text) and hashtags; `resolve` of URLs and addresses. */
  search: SearchService;
  /** Web Push: subscriptions per access token, and the job sending encrypted notifications. */
  push: PushService;
  /** The streaming API's hub in this process: events heard on the pg pub/sub, sent to open streams. */
  streaming: StreamingService;
  /** Request limits shared by every process of the service (packages/auth). */
  rateLimiter: RateLimiter;
  /** Revocable sign-in sessions of the web pages. */
  sessions: SessionActivations;
  twoFactor: TwoFactorService;
  /** HMAC keys of the web forms, derived from SECRET_KEY_BASE. */
  formKeys: { csrf: Buffer; pendingSignIn: Buffer };
  /** Housekeeping on the job queue (rate-limit windows, unconfirmed sign-ups, PuSH leases, federation). */
  jobs: PeriodicJobs;
}

export type AppContextOverrides = Partial<Omit<AppContextParts, 'config'>>;

/** Other processes of this service re-render their instance documents when this channel speaks. */
export const INSTANCE_CHANGED_CHANNEL = 'microblog:instance-changed';

/** The composition root of the microblog service: its parts, built and wired once by `AppContext.fromConfig`. */
export type AppContext = Readonly<AppContextParts> & {
  /** Releases connections and timers this context opened; safe to call more than once. */
  close(): Promise<void>;
};

export const AppContext = {
  async fromConfig(config: MicroblogConfig, overrides: AppContextOverrides = {}): Promise<AppContext> {
    const infrastructure = createInfrastructure(config, overrides);
    const { logger, sequelize, pubsub } = infrastructure;
    try {
      const stats = overrides.stats ?? contributeUsageCounters(new InstanceStatsRegistry(logger), sequelize);
      // Web Push's VAPID pair: from the config, else generated once into the data folder.
      const vapid = await resolveVapidKeys(config);
      const instance =
        overrides.instance ??
        new InstanceService({ config, sequelize, stats, logger, vapidPublicKey: vapid.publicKey });
      const instanceDocuments =
        overrides.instanceDocuments ??
        new InstanceDocuments(instance, { ttlMs: config.instance.statsTtlSeconds * 1000, logger });

      // A change here re-renders before the change call returns; other processes hear of it by pub/sub.
      const origin = randomUUID();
      instance.onChange(async () => {
        await instanceDocuments.invalidate();
        await pubsub.publish(INSTANCE_CHANGED_CHANNEL, { origin }).catch((error: unknown) => {
          logger.warn({ err: error }, 'could not tell other processes about an instance change');
        });
      });
      const unsubscribe = await pubsub.subscribe(INSTANCE_CHANGED_CHANNEL, (payload) => {
        if ((payload as { origin?: unknown } | null)?.origin === origin) return;
        instanceDocuments.invalidate().catch((error: unknown) => {
          logger.error({ err: error }, 're-rendering the instance documents failed');
        });
      });
      infrastructure.onClose(unsubscribe);

      const users = overrides.users ?? new UserStore({ sequelize, passwordHashParams: config.passwordHash });
      const secretKeyBase = await resolveSecretKeyBase(config);
      const oauth =
        overrides.oauth ??
        new OAuthService({
          sequelize,
          logger,
          cipher: new TokenCipher(secretKeyBase),
          passwordGrant: config.oauth.passwordGrant,
          passwords: userPasswordVerifier(users),
        });

      const actors =
        overrides.actors ??
        new ActorStore({
          sequelize,
          urls: microblogActorUrls(config.http.publicUrl),
          queue: infrastructure.queue,
        });
      const federation = overrides.federation ?? microblogFederation(config, infrastructure, actors);
      infrastructure.onClose(async () => federation.close());

      const mediaStorage =
        overrides.mediaStorage ??
        createMediaStorage({
          dir: config.media.dir,
          s3: config.media.s3,
          baseUrl: `${config.http.publicUrl}/system`,
        });
      const mediaPipeline =
        overrides.mediaPipeline ??
        createMediaPipeline({
          storage: mediaStorage,
          limits: config.media.limits,
          ...(config.media.ffmpegPath !== undefined ? { ffmpegPath: config.media.ffmpegPath } : {}),
        });
      const media =
        overrides.media ??
        new MediaAttachmentService({
          sequelize,
          pipeline: mediaPipeline,
          storage: mediaStorage,
          queue: infrastructure.queue,
          logger,
          limits: config.media.limits,
          descriptionLimit: config.limits.mediaAttachments.descriptionLimit,
          incomingDir: config.media.incomingDir,
        });
      const remoteMedia =
        overrides.remoteMedia ??
        new RemoteMedia({
          sequelize,
          queue: infrastructure.queue,
          logger,
          federation,
          storage: mediaStorage,
          limits: config.media.limits,
          ...(config.media.ffmpegPath !== undefined ? { ffmpegPath: config.media.ffmpegPath } : {}),
        });
      const pushHub = overrides.pushHub ?? microblogPushHub(config, infrastructure, actors, federation);
      const rateLimiter =
        overrides.rateLimiter ?? new RateLimiter(sequelize, { logger, safelist: config.rateLimits.safelist });
      const polls =
        overrides.polls ??
        new PollService({ sequelize, queue: infrastructure.queue, logger, limits: config.limits.polls });
      const statuses =
        overrides.statuses ??
        new StatusService({
          sequelize,
          actors,
          queue: infrastructure.queue,
          logger,
          publicUrl: config.http.publicUrl,
          limits: { ...config.limits.statuses, maxPinnedStatuses: config.limits.accounts.maxPinnedStatuses },
          remoteImages: remoteMedia,
          polls,
        });
      const previewCards =
        overrides.previewCards ??
        new PreviewCardService({
          sequelize,
          queue: infrastructure.queue,
          logger: logger.child({ component: 'preview-cards' }),
          fetch: federation.fetch,
          images: remoteMedia.cache,
          publicUrl: config.http.publicUrl,
        });
      statuses.addListener(previewCards.statusListener());
      const lists = overrides.lists ?? new ListService({ sequelize, queue: infrastructure.queue, logger });
      statuses.addFeedWriter((statusId) => lists.fanOut(statusId), 'listed');
      const conversations = overrides.conversations ?? new ConversationService({ sequelize });
      const scheduledStatuses =
        overrides.scheduledStatuses ??
        new ScheduledStatusService({ sequelize, queue: infrastructure.queue, logger, actors, statuses });
      statuses.addFeedWriter((statusId) => conversations.fanOut(statusId), 'direct');
      // A new public status with a followed hashtag joins the follower's home feed (issue 16 §2).
      const tags = overrides.tags ?? new TagService({ sequelize });
      statuses.addFeedWriter((statusId) => tags.fanOut(statusId), 'tagged');
      // A follow that starts counting brings the target's statuses into the follower's home feed; an
      // accepted follow that ends takes them out (jobs; only local followers have a home feed).
      // An unfollow also takes the account out of the follower's lists (as the reference).
      federation.follows.addListener({
        accepted: (follow) => statuses.queueHomeMerge(follow.actorId, follow.targetActorId, true),
        removed: async (follow) => {
          await statuses.queueHomeMerge(follow.actorId, follow.targetActorId, false);
          await lists.followEnded(follow.actorId, follow.targetActorId);
        },
      });
      const markers = overrides.markers ?? new MarkerService({ sequelize });
      const notifications =
        overrides.notifications ??
        new NotificationService({
          sequelize,
          queue: infrastructure.queue,
          logger,
          // unread_count counts what came after the notifications marker the account's clients saved.
          readMarker: async (accountId) =>
            (await markers.get(accountId, ['notifications']))[0]?.lastReadId ?? null,
        });
      // A poll that ended tells its author and its local voters.
      polls.addCloseListener(async ({ statusId, voterIds }) => {
        await notifications.notifyPoll(statusId, voterIds);
      });
      // Notifications are made from what the statuses and the follow store tell once committed.
      statuses.addListener(notifications.statusListener());
      federation.follows.addListener(notifications.followListener());
      const filters = overrides.filters ?? new FilterService({ sequelize });
      const accounts =
        overrides.accounts ??
        new AccountService({
          sequelize,
          users,
          actors,
          tokens: oauthUserTokens(oauth),
          mailer: infrastructure.mailer,
          instance,
          limits: config.limits.accounts,
          publicUrl: config.http.publicUrl,
          instanceTitle: config.instance.title,
          images: new ProfileImages({
            pipeline: mediaPipeline,
            storage: mediaStorage,
            limits: config.media.limits,
            tmpDir: config.media.incomingDir,
            logger,
          }),
          remoteImages: remoteMedia,
        });
      const relationships =
        overrides.relationships ??
        new RelationshipService({
          sequelize,
          actors,
          federation,
          accounts,
          onBlock: async (accountId, targetId) => {
            await notifications.forgetSender(accountId, targetId);
          },
        });
      const search =
        overrides.search ??
        new SearchService({
          sequelize,
          accounts,
          relationships,
          tags,
          statuses,
          actors,
          federation,
          logger,
          publicUrl: config.http.publicUrl,
        });
      // Streaming hears statuses, notifications and filters once their changes are committed.
      const streaming =
        overrides.streaming ??
        new StreamingService({
          sequelize,
          pubsub,
          logger: logger.child({ component: 'streaming' }),
          statuses,
          filters,
          lists,
          notifications,
          conversations,
          notificationViews: { sequelize, actors, remoteImages: remoteMedia, statuses, filters },
          accountViews: { sequelize, actors, remoteImages: remoteMedia },
          json: {
            publicUrl: config.http.publicUrl,
            mediaUrl: (key: string) => media.urlOf(key),
          },
        });
      // First of the listeners: a new status reaches open streams as soon as its feeds are written,
      // not after the notifications and preview-card listeners' queries (ADR 0043).
      statuses.addListener(streaming.statusListener(), { first: true });
      notifications.addCreatedListener((rows) => streaming.notificationsCreated(rows));
      filters.addChangeListener((accountId) => streaming.filtersChanged(accountId));
      const push =
        overrides.push ??
        new PushService({
          sequelize,
          queue: infrastructure.queue,
          logger: logger.child({ component: 'push' }),
          vapid,
          subject: `mailto:${config.instance.contactEmail || `admin@${new URL(config.http.publicUrl).hostname}`}`,
          fetch: federation.fetch,
          cipher: new TokenCipher(secretKeyBase),
          accountViews: { sequelize, actors, remoteImages: remoteMedia },
          publicUrl: config.http.publicUrl,
        });
      notifications.addCreatedListener((rows) => push.notificationsCreated(rows));
      infrastructure.onClose(async () => streaming.close());
      // Statuses federate once committed; remote ones stored from the inbox are told to the same
      // notifications and streaming listeners.
      const statusFederation =
        overrides.statusFederation ??
        new StatusFederation({
          sequelize,
          actors,
          federation,
          statuses,
          polls,
          queue: infrastructure.queue,
          logger,
          publicUrl: config.http.publicUrl,
          mediaUrl: (key: string) => media.urlOf(key),
          listeners: [notifications.statusListener(), streaming.statusListener()],
        });
      statusFederation.registerInboxHandlers();
      statuses.addListener(statusFederation.statusListener());
      polls.addCloseListener(({ statusId }) => statusFederation.pollClosed(statusId));
      // Each new public status goes to the PuSH subscribers of its author's Atom feed (issue 16 §6).
      const ostatus =
        overrides.ostatus ??
        new OStatusService({
          sequelize,
          actors,
          statuses,
          statusFederation,
          federation,
          pushHub,
          queue: infrastructure.queue,
          logger,
          publicUrl: config.http.publicUrl,
        });
      statuses.addListener(ostatus.statusListener());
      polls.addVoteListener((vote) => statusFederation.voted(vote));
      // resolve=true of a public status URL stores the whole remote status, as the inbox would (search
      // checked that the document came from its own origin).
      search.addObjectResolver(
        publicObjectResolver((document, fetchedFrom) =>
          statusFederation.storeDocument(document, fetchedFrom),
        ),
      );
      const jobs =
        overrides.jobs ??
        new PeriodicJobs({
          queue: infrastructure.queue,
          logger: logger.child({ component: 'jobs' }),
          clock: () => new Date(),
          jobs: [
            ...maintenanceJobs({ users, rateLimiter, pushHub, media, statuses, relationships }),
            ...federation.maintenanceJobs(),
            ...polls.periodicJobs(),
            ...scheduledStatuses.periodicJobs(),
            ...ostatus.periodicJobs(),
          ],
        });
      const parts: AppContextParts = {
        logger,
        sequelize,
        queue: infrastructure.queue,
        pubsub,
        mailer: infrastructure.mailer,
        config,
        stats,
        instance,
        instanceDocuments,
        users,
        actors,
        federation,
        pushHub,
        accounts,
        relationships,
        oauth,
        mediaStorage,
        mediaPipeline,
        media,
        remoteMedia,
        statuses,
        previewCards,
        statusFederation,
        ostatus,
        polls,
        scheduledStatuses,
        lists,
        conversations,
        markers,
        notifications,
        filters,
        timelines: overrides.timelines ?? new TimelineService({ sequelize, rendered: statuses.rendered }),
        announcements:
          overrides.announcements ??
          new AnnouncementService({ sequelize, actors, publicUrl: config.http.publicUrl }),
        rateLimiter,
        jobs,
        streaming,
        tags,
        search,
        push,
        sessions:
          overrides.sessions ??
          new SessionActivations({ sequelize, maxPerUser: config.sessions.maxActivations }),
        twoFactor:
          overrides.twoFactor ??
          new TwoFactorService({
            sequelize,
            users,
            box: new SecretBox(deriveKey(secretKeyBase, 'totp secrets')),
            issuer: config.instance.title,
          }),
        formKeys: overrides.formKeys ?? {
          csrf: deriveKey(secretKeyBase, 'csrf tokens'),
          pendingSignIn: deriveKey(secretKeyBase, 'pending sign-in'),
        },
      };
      return Object.freeze({ ...parts, close: () => infrastructure.close() });
    } catch (error) {
      await infrastructure.close();
      throw error;
    }
  },
};
