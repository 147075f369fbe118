import { ACTOR_FRAGMENT } from '../../graphql/web-client-documents.js';

// The reference web client's conversation documents (src/graphql/conversations.ts, event.ts, user.ts,
// actor.ts), as it sends them; they must validate against the schema and run.

const COMMENT_FIELDS = `fragment CommentFields on Comment {
  id
  uuid
  url
  text
  visibility
  local
  actor { ...ActorFragment }
  attributedTo { ...ActorFragment }
  totalReplies
  insertedAt
  updatedAt
  deletedAt
  publishedAt
  isAnnouncement
  language
}`;

/** Its CONVERSATION_QUERY_FRAGMENT (the later revision also asks the event's organizer and group). */
const CONVERSATION_QUERY = `fragment ConversationQuery on Conversation {
  id
  conversationParticipantId
  actor { ...ActorFragment }
  lastComment { ...CommentFields }
  participants { ...ActorFragment }
  event {
    id
    uuid
    title
    organizerActor { id }
    attributedTo { id }
    picture { id url name metadata { width height blurhash } }
  }
  unread
  insertedAt
  updatedAt
}
${COMMENT_FIELDS}
${ACTOR_FRAGMENT}`;

const CONVERSATIONS_QUERY = `fragment ConversationsQuery on PaginatedConversationList {
  total
  elements { ...ConversationQuery }
}
${CONVERSATION_QUERY}`;

export const CONVERSATION_DOCUMENTS = {
  /** The earlier revision sends `attributedToId`; the later one does not. */
  SendEventPrivateMessageMutation: `mutation SendEventPrivateMessageMutation(
  $text: String!
  $actorId: ID!
  $eventId: ID!
  $roles: [ParticipantRoleEnum]
  $attributedToId: ID
  $language: String
) {
  sendEventPrivateMessage(
    text: $text
    actorId: $actorId
    eventId: $eventId
    roles: $roles
    attributedToId: $attributedToId
    language: $language
  ) { ...ConversationQuery }
}
${CONVERSATION_QUERY}`,
  GetConversation: `query GetConversation($id: ID!, $page: Int, $limit: Int) {
  conversation(id: $id) {
    ...ConversationQuery
    comments(page: $page, limit: $limit) {
      total
      elements {
        id
        text
        actor { ...ActorFragment }
        insertedAt
        updatedAt
        deletedAt
        publishedAt
      }
    }
  }
}
${CONVERSATION_QUERY}`,
  PostPrivateMessageMutation: `mutation PostPrivateMessageMutation($text: String!, $actorId: ID!, $language: String, $mentions: [String]) {
  postPrivateMessage(text: $text, actorId: $actorId, language: $language, mentions: $mentions) {
    ...ConversationQuery
  }
}
${CONVERSATION_QUERY}`,
  ReplyToPrivateMessageMutation: `mutation ReplyToPrivateMessageMutation(
  $text: String!
  $actorId: ID!
  $attributedToId: ID
  $language: String
  $conversationId: ID!
  $mentions: [String]
) {
  postPrivateMessage(
    text: $text
    actorId: $actorId
    attributedToId: $attributedToId
    language: $language
    conversationId: $conversationId
    mentions: $mentions
  ) { ...ConversationQuery }
}
${CONVERSATION_QUERY}`,
  ConversationCommentChanged: `subscription ConversationCommentChanged($id: ID!) {
  conversationCommentChanged(id: $id) {
    id
    lastComment {
      id
      text
      updatedAt
      insertedAt
      deletedAt
      publishedAt
      actor { ...ActorFragment }
    }
  }
}
${ACTOR_FRAGMENT}`,
  MarkConversationAsRead: `mutation MarkConversationAsRead($id: ID!, $read: Boolean!) {
  updateConversation(conversationId: $id, read: $read) { ...ConversationQuery }
}
${CONVERSATION_QUERY}`,
  EventConversations: `query EventConversations($uuid: UUID!, $page: Int, $limit: Int) {
  event(uuid: $uuid) {
    id
    uuid
    title
    conversations(page: $page, limit: $limit) { ...ConversationsQuery }
  }
}
${CONVERSATIONS_QUERY}`,
  UserConversations: `query UserConversations($page: Int, $limit: Int) {
  loggedUser {
    id
    conversations(page: $page, limit: $limit) { ...ConversationsQuery }
  }
}
${CONVERSATIONS_QUERY}`,
  ProfileConversations: `query ProfileConversations($page: Int, $limit: Int) {
  loggedPerson {
    id
    conversations(page: $page, limit: $limit) { ...ConversationsQuery }
  }
}
${CONVERSATIONS_QUERY}`,
  LoggedUserUnreadConversations: `query LoggedUserUnreadConversations {
  loggedUser {
    id
    defaultActor {
      id
      unreadConversationsCount
    }
  }
}`,
  OnUreadActorConversationsChanged: `subscription OnUreadActorConversationsChanged($personId: ID!) {
  personUnreadConversationsCount(personId: $personId)
}`,
} as const;
