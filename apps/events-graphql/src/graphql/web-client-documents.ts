/** The current web client's `FullConfig` query, as Apollo Client sends it (with `__typename`s). */
export const FULL_CONFIG_QUERY = `query FullConfig {
  config {
    name
    description
    slogan
    version
    registrationsOpen
    registrationsAllowlist
    demoMode
    longEvents
    countryCode
    languages
    primaryColor
    secondaryColor
    instanceLogo {
      url
      __typename
    }
    defaultPicture {
      id
      url
      name
      metadata {
        width
        height
        blurhash
        __typename
      }
      __typename
    }
    eventCategories {
      id
      label
      __typename
    }
    anonymous {
      participation {
        allowed
        validation {
          email {
            enabled
            confirmationRequired
            __typename
          }
          captcha {
            enabled
            __typename
          }
          __typename
        }
        __typename
      }
      eventCreation {
        allowed
        validation {
          email {
            enabled
            confirmationRequired
            __typename
          }
          captcha {
            enabled
            __typename
          }
          __typename
        }
        __typename
      }
      reports {
        allowed
        __typename
      }
      actorId
      __typename
    }
    location {
      latitude
      longitude
      __typename
    }
    maps {
      tiles {
        endpoint
        attribution
        __typename
      }
      routing {
        type
        __typename
      }
      __typename
    }
    geocoding {
      provider
      autocomplete
      __typename
    }
    resourceProviders {
      type
      endpoint
      software
      __typename
    }
    features {
      groups
      eventCreation
      eventExternal
      antispam
      __typename
    }
    restrictions {
      onlyAdminCanCreateGroups
      onlyGroupsCanCreateEvents
      __typename
    }
    auth {
      ldap
      databaseLogin
      oauthProviders {
        id
        label
        __typename
      }
      __typename
    }
    uploadLimits {
      default
      avatar
      banner
      __typename
    }
    instanceFeeds {
      enabled
      __typename
    }
    webPush {
      enabled
      publicKey
      __typename
    }
    analytics {
      id
      enabled
      configuration {
        key
        value
        type
        __typename
      }
      __typename
    }
    search {
      global {
        isEnabled
        isDefault
        __typename
      }
      __typename
    }
    exportFormats {
      eventParticipants
      __typename
    }
    __typename
  }
}`;

// The current web client's documents that touch the signed-in user's settings, feed tokens, activity
// settings and authorized applications (issue 13 §8), as it writes them; each must validate here.
const ACTOR_FRAGMENT = `fragment ActorFragment on Actor {
  id
  avatar {
    id
    url
  }
  type
  preferredUsername
  name
  domain
  summary
  url
}`;

const USER_SETTINGS_FRAGMENT = `fragment UserSettingFragment on UserSettings {
  timezone
  notificationOnDay
  notificationEachWeek
  notificationBeforeEvent
  notificationPendingParticipation
  notificationPendingMembership
  groupNotifications
  location {
    range
    geohash
    name
  }
}`;

/**
 * The signed-in web client's documents by name. One change from the client: `SetUserSettings`
 * declares `$timezone: String`, the seed's type, where the current client says `Timezone` (spec
 * README: the seed's type stays).
 */
export const SIGNED_IN_DOCUMENTS: Readonly<Record<string, string>> = {
  LoggedUserAndSettings: `query LoggedUserQuery {
  loggedUser {
    id
    email
    locale
    provider
    defaultActor {
      ...ActorFragment
    }
    settings {
      ...UserSettingFragment
    }
  }
}
${ACTOR_FRAGMENT}
${USER_SETTINGS_FRAGMENT}`,
  UserSetting: `query UserSetting {
  loggedUser {
    id
    locale
    settings {
      ...UserSettingFragment
    }
  }
}
${USER_SETTINGS_FRAGMENT}`,
  LoggedUserLocation: `query LoggedUserLocation {
  loggedUser {
    settings {
      location {
        range
        geohash
        name
      }
    }
  }
}`,
  SetUserSettings: `mutation SetUserSettings(
  $timezone: String
  $notificationOnDay: Boolean
  $notificationEachWeek: Boolean
  $notificationBeforeEvent: Boolean
  $notificationPendingParticipation: NotificationPendingEnum
  $notificationPendingMembership: NotificationPendingEnum
  $groupNotifications: NotificationPendingEnum
  $location: LocationInput
) {
  setUserSettings(
    timezone: $timezone
    notificationOnDay: $notificationOnDay
    notificationEachWeek: $notificationEachWeek
    notificationBeforeEvent: $notificationBeforeEvent
    notificationPendingParticipation: $notificationPendingParticipation
    notificationPendingMembership: $notificationPendingMembership
    groupNotifications: $groupNotifications
    location: $location
  ) {
    ...UserSettingFragment
  }
}
${USER_SETTINGS_FRAGMENT}`,
  UserNotifications: `query UserNotifications {
  loggedUser {
    id
    locale
    settings {
      ...UserSettingFragment
    }
    feedTokens {
      token
      actor {
        id
      }
    }
    activitySettings {
      key
      method
      enabled
    }
  }
}
${USER_SETTINGS_FRAGMENT}`,
  UpdateActivitySetting: `mutation UpdateActivitySetting($key: String!, $method: String!, $enabled: Boolean!) {
  updateActivitySetting(key: $key, method: $method, enabled: $enabled) {
    key
    method
    enabled
  }
}`,
  FeedTokensLoggedUser: `query FeedTokensLoggedUser {
  loggedUser {
    id
    feedTokens {
      token
      actor {
        id
      }
    }
  }
}`,
  LoggedUserUnreadConversations: `query LoggedUserUnreadConversations {
  loggedUser {
    id
    defaultActor {
      id
      unreadConversationsCount
    }
  }
}`,
  FetchPerson: `query FetchPerson($username: String!) {
  fetchPerson(preferredUsername: $username) {
    ...ActorFragment
    suspended
    mediaSize
    avatar {
      id
      name
      url
    }
    banner {
      id
      url
    }
    feedTokens {
      token
    }
  }
}
${ACTOR_FRAGMENT}`,
  CreateFeedTokenActor: `mutation createFeedToken($actor_id: ID!) {
  createFeedToken(actorId: $actor_id) {
    token
    actor {
      id
    }
    user {
      id
    }
  }
}`,
  CreateFeedToken: `mutation {
  createFeedToken {
    token
    actor {
      id
    }
    user {
      id
    }
  }
}`,
  DeleteFeedToken: `mutation deleteFeedToken($token: String!) {
  deleteFeedToken(token: $token) {
    actor {
      id
    }
    user {
      id
    }
  }
}`,
  AuthAuthorizedApplications: `query AuthAuthorizedApplications {
  loggedUser {
    id
    authAuthorizedApplications {
      id
      application {
        name
        website
      }
      lastUsedAt
      insertedAt
    }
  }
}`,
  UserFeedTokensFragment: `query UserFeedTokens {
  loggedUser {
    ...UserFeedTokensFragment
  }
}
fragment UserFeedTokensFragment on User {
  id
  feedTokens {
    token
  }
}`,
  PersonFeedTokensFragment: `query PersonFeedTokens {
  loggedPerson {
    ...PersonFeedTokensFragment
  }
}
fragment PersonFeedTokensFragment on Person {
  id
  feedTokens {
    token
  }
}`,
};

/**
 * The reference web client's event documents that validate fully against our schema (issue 13 §1).
 * Not yet: FetchEvent, FetchEvents, createEvent, updateEvent (physicalAddress, participantStats,
 * picture/contacts arguments), FetchEventBasic and Participants (participantStats, participants),
 * JoinEvent, LeaveEvent, ConfirmParticipation, UpdateParticipant, EventPersonParticipation,
 * ExportEventParticipants, FetchGroupEvents, EventConversations.
 */
export const EVENT_DOCUMENTS: Readonly<Record<string, string>> = {
  DeleteEvent: `mutation DeleteEvent($eventId: ID!) {
  deleteEvent(eventId: $eventId) {
    id
  }
}`,
};

const COMMENT_FIELDS_FRAGMENT = `fragment CommentFields on Comment {
  id
  uuid
  url
  text
  visibility
  local
  actor {
    ...ActorFragment
  }
  attributedTo {
    ...ActorFragment
  }
  totalReplies
  insertedAt
  updatedAt
  deletedAt
  publishedAt
  isAnnouncement
  language
}
${ACTOR_FRAGMENT}`;

const COMMENT_RECURSIVE_FRAGMENT = `fragment CommentRecursive on Comment {
  ...CommentFields
  inReplyToComment {
    ...CommentFields
  }
  originComment {
    ...CommentFields
  }
  replies {
    ...CommentFields
    inReplyToComment {
      ...CommentFields
    }
    originComment {
      ...CommentFields
    }
    replies {
      ...CommentFields
    }
  }
}
${COMMENT_FIELDS_FRAGMENT}`;

/** The reference web client's comment documents (`src/graphql/comment.ts`, issue 13 §4), as it writes them. */
export const COMMENT_DOCUMENTS: Readonly<Record<string, string>> = {
  FetchThreadReplies: `query FetchThreadReplies($threadId: ID!) {
  thread(id: $threadId) {
    ...CommentRecursive
  }
}
${COMMENT_RECURSIVE_FRAGMENT}`,
  CommentThreads: `query CommentThreads($eventUUID: UUID!) {
  event(uuid: $eventUUID) {
    id
    uuid
    comments {
      ...CommentFields
    }
  }
}
${COMMENT_FIELDS_FRAGMENT}`,
  CommentThreadsWithReplies: `query CommentThreadsWithReplies($eventUUID: UUID!) {
  event(uuid: $eventUUID) {
    id
    uuid
    comments {
      ...CommentRecursive
    }
  }
}
${COMMENT_RECURSIVE_FRAGMENT}`,
  CreateCommentFromEvent: `mutation CreateCommentFromEvent(
  $eventId: ID!
  $text: String!
  $inReplyToCommentId: ID
  $isAnnouncement: Boolean
) {
  createComment(
    eventId: $eventId
    text: $text
    inReplyToCommentId: $inReplyToCommentId
    isAnnouncement: $isAnnouncement
  ) {
    ...CommentRecursive
  }
}
${COMMENT_RECURSIVE_FRAGMENT}`,
  DeleteComment: `mutation DeleteComment($commentId: ID!) {
  deleteComment(commentId: $commentId) {
    id
  }
}`,
  UpdateComment: `mutation UpdateComment($commentId: ID!, $text: String!) {
  updateComment(commentId: $commentId, text: $text) {
    ...CommentFields
  }
}
${COMMENT_FIELDS_FRAGMENT}`,
};
