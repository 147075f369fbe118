import type { InstanceView } from '../modules/instance/instance.service.js';
import { MASTODON_API_VERSION } from '../version.js';
import { serializeRule, type RuleJson } from './rule.js';

/** `GET /api/v1/instance` (deprecated in Mastodon 4.0, still read by megalodon and older apps). */
export interface InstanceV1Json {
  uri: string;
  title: string;
  short_description: string;
  description: string;
  email: string;
  version: string;
  urls: { streaming_api: string };
  stats: { user_count: number; status_count: number; domain_count: number };
  thumbnail: string | null;
  languages: string[];
  registrations: boolean;
  approval_required: boolean;
  invites_enabled: boolean;
  configuration: {
    accounts: { max_featured_tags: number };
    statuses: { max_characters: number; max_media_attachments: number; characters_reserved_per_url: number };
    media_attachments: {
      supported_mime_types: string[];
      image_size_limit: number;
      image_matrix_limit: number;
      video_size_limit: number;
      video_frame_rate_limit: number;
      video_matrix_limit: number;
    };
    polls: {
      max_options: number;
      max_characters_per_option: number;
      min_expiration: number;
      max_expiration: number;
    };
  };
  /** An Account once accounts exist and an administrator names one. */
  contact_account: null;
  rules: RuleJson[];
}

type FeedAccess = 'public' | 'authenticated' | 'disabled';

/** `GET /api/v2/instance` (Mastodon 4.0+, the shape masto.js and newer apps read). */
export interface InstanceV2Json {
  domain: string;
  title: string;
  version: string;
  source_url: string | null;
  description: string;
  usage: { users: { active_month: number } };
  thumbnail: { url: string; blurhash: string | null; versions: { '@1x': string; '@2x': string } };
  icon: Array<{ src: string; size: string }>;
  languages: string[];
  configuration: {
    urls: {
      streaming: string;
      status: string | null;
      about: string | null;
      privacy_policy: string | null;
      terms_of_service: string | null;
    };
    vapid: { public_key: string | null };
    accounts: {
      max_featured_tags: number;
      max_pinned_statuses: number;
      max_display_name_length: number;
      max_note_length: number;
      max_profile_fields: number;
      profile_field_name_limit: number;
      profile_field_value_limit: number;
      max_avatar_description_length: number;
      max_header_description_length: number;
    };
    statuses: { max_characters: number; max_media_attachments: number; characters_reserved_per_url: number };
    media_attachments: InstanceV1Json['configuration']['media_attachments'] & { description_limit: number };
    polls: InstanceV1Json['configuration']['polls'];
    translation: { enabled: boolean };
    timelines_access: Record<
      'live_feeds' | 'hashtag_feeds' | 'trending_link_feeds',
      { local: FeedAccess; remote: FeedAccess }
    >;
    limited_federation: boolean;
  };
  registrations: {
    enabled: boolean;
    approval_required: boolean;
    reason_required: boolean;
    message: string | null;
    min_age: number | null;
    url: string | null;
  };
  api_versions: { mastodon: number };
  contact: { email: string; account: null };
  rules: RuleJson[];
  wrapstodon: string | null;
}

export function serializeInstanceV1(view: InstanceView): InstanceV1Json {
  const { limits } = view;
  return {
    uri: view.domain,
    title: view.title,
    short_description: view.shortDescription,
    description: view.description,
    email: view.contactEmail,
    version: view.version,
    urls: { streaming_api: view.streamingUrl },
    stats: {
      user_count: view.stats.users,
      status_count: view.stats.localStatuses,
      domain_count: view.stats.knownDomains,
    },
    thumbnail: view.thumbnailUrl,
    languages: [...view.languages],
    registrations: view.registrationsOpen,
    approval_required: view.approvalRequired,
    invites_enabled: false,
    configuration: {
      accounts: { max_featured_tags: limits.accounts.maxFeaturedTags },
      statuses: statusesConfiguration(view),
      media_attachments: {
        supported_mime_types: [...limits.mediaAttachments.supportedMimeTypes],
        image_size_limit: limits.mediaAttachments.imageSizeLimit,
        image_matrix_limit: limits.mediaAttachments.imageMatrixLimit,
        video_size_limit: limits.mediaAttachments.videoSizeLimit,
        video_frame_rate_limit: limits.mediaAttachments.videoFrameRateLimit,
        video_matrix_limit: limits.mediaAttachments.videoMatrixLimit,
      },
      polls: pollsConfiguration(view),
    },
    contact_account: null,
    rules: view.rules.map(serializeRule),
  };
}

export function serializeInstanceV2(view: InstanceView): InstanceV2Json {
  const { limits } = view;
  const v1 = serializeInstanceV1(view).configuration;
  return {
    domain: view.domain,
    title: view.title,
    version: view.version,
    source_url: view.sourceUrl,
    // v2's description is the short one; the long text is v1's and /api/v1/instance/extended_description's.
    description: view.shortDescription,
    usage: { users: { active_month: view.stats.activeUsersMonth } },
    thumbnail: {
      url: view.thumbnailUrl,
      blurhash: null,
      versions: { '@1x': view.thumbnailUrl, '@2x': view.thumbnailUrl },
    },
    icon: [],
    languages: [...view.languages],
    configuration: {
      urls: {
        streaming: view.streamingUrl,
        // No status, about, privacy or terms pages are served yet.
        status: null,
        about: null,
        privacy_policy: null,
        terms_of_service: null,
      },
      // Web Push (modules/push): clients subscribe with this key; null means no push.
      vapid: { public_key: view.vapidPublicKey },
      accounts: {
        max_featured_tags: limits.accounts.maxFeaturedTags,
        max_pinned_statuses: limits.accounts.maxPinnedStatuses,
        max_display_name_length: limits.accounts.maxDisplayNameLength,
        max_note_length: limits.accounts.maxNoteLength,
        max_profile_fields: limits.accounts.maxProfileFields,
        profile_field_name_limit: limits.accounts.profileFieldNameLimit,
        profile_field_value_limit: limits.accounts.profileFieldValueLimit,
        max_avatar_description_length: limits.accounts.maxAvatarDescriptionLength,
        max_header_description_length: limits.accounts.maxHeaderDescriptionLength,
      },
      statuses: v1.statuses,
      media_attachments: {
        ...v1.media_attachments,
        description_limit: limits.mediaAttachments.descriptionLimit,
      },
      polls: v1.polls,
      translation: { enabled: false },
      timelines_access: {
        live_feeds: { local: 'public', remote: 'public' },
        hashtag_feeds: { local: 'public', remote: 'public' },
        trending_link_feeds: { local: 'public', remote: 'public' },
      },
      limited_federation: false,
    },
    registrations: {
      enabled: view.registrationsOpen,
      approval_required: view.approvalRequired,
      reason_required: false,
      message: view.registrationsOpen ? null : view.closedRegistrationsMessage,
      min_age: null,
      url: null,
    },
    api_versions: { mastodon: MASTODON_API_VERSION },
    contact: { email: view.contactEmail, account: null },
    rules: view.rules.map(serializeRule),
    wrapstodon: null,
  };
}

function statusesConfiguration(view: InstanceView): InstanceV1Json['configuration']['statuses'] {
  return {
    max_characters: view.limits.statuses.maxCharacters,
    max_media_attachments: view.limits.statuses.maxMediaAttachments,
    characters_reserved_per_url: view.limits.statuses.charactersReservedPerUrl,
  };
}

function pollsConfiguration(view: InstanceView): InstanceV1Json['configuration']['polls'] {
  return {
    max_options: view.limits.polls.maxOptions,
    max_characters_per_option: view.limits.polls.maxCharactersPerOption,
    min_expiration: view.limits.polls.minExpiration,
    max_expiration: view.limits.polls.maxExpiration,
  };
}
