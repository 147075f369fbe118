import { ACTOR_FRAGMENT, TAG_FRAGMENT } from '../../graphql/web-client-documents.js';

// The reference web client's post and discussion documents (src/graphql/post.ts, discussion.ts), as it
// sends them; they must validate against the schema and run. Its post documents declare `$body: String`
// although the argument is required: Absinthe lets it through and the changeset refuses a missing body,
// so `createPost(body:)` is nullable here and the service refuses it the same way.

const POST_FRAGMENT = `fragment PostFragment on Post {
  id
  title
  slug
  url
  body
  draft
  author { id preferredUsername name domain avatar { id url } }
  attributedTo { id preferredUsername name domain avatar { id url } }
  insertedAt
  updatedAt
  publishAt
  draft
  visibility
  tags { ...TagFragment }
  picture { id url name }
}
${TAG_FRAGMENT}`;

const POST_BASIC_FIELDS = `fragment PostBasicFields on Post {
  id
  title
  slug
  url
  author { id preferredUsername name domain avatar { id url } }
  attributedTo { id preferredUsername name domain avatar { id url } }
  insertedAt
  updatedAt
  publishAt
  draft
  visibility
  picture { id url name }
}`;

const DISCUSSION_BASIC_FIELDS = `fragment DiscussionBasicFields on Discussion {
  id
  title
  slug
  insertedAt
  updatedAt
  lastComment { id text actor { ...ActorFragment } publishedAt deletedAt }
}
${ACTOR_FRAGMENT}`;

const DISCUSSION_FIELDS = `fragment DiscussionFields on Discussion {
  id
  title
  slug
  lastComment { id text insertedAt updatedAt deletedAt publishedAt actor { ...ActorFragment } }
  actor { ...ActorFragment }
  creator { ...ActorFragment }
}
${ACTOR_FRAGMENT}`;

export const POST_DOCUMENTS = {
  GroupPosts: `query GroupPosts($preferredUsername: String!, $page: Int, $limit: Int) {
  group(preferredUsername: $preferredUsername) {
    id
    preferredUsername
    domain
    name
    posts(page: $page, limit: $limit) { total elements { ...PostBasicFields } }
  }
}
${POST_BASIC_FIELDS}`,
  Post: `query Post($slug: String!) { post(slug: $slug) { ...PostFragment } }
${POST_FRAGMENT}`,
  CreatePost: `mutation CreatePost($title: String!, $body: String, $attributedToId: ID!, $visibility: PostVisibility,
  $draft: Boolean, $tags: [String], $picture: MediaInput) {
  createPost(title: $title, body: $body, attributedToId: $attributedToId, visibility: $visibility, draft: $draft,
    tags: $tags, picture: $picture) { ...PostFragment }
}
${POST_FRAGMENT}`,
  UpdatePost: `mutation UpdatePost($id: ID!, $title: String, $body: String, $attributedToId: ID,
  $visibility: PostVisibility, $draft: Boolean, $tags: [String], $picture: MediaInput) {
  updatePost(id: $id, title: $title, body: $body, attributedToId: $attributedToId, visibility: $visibility,
    draft: $draft, tags: $tags, picture: $picture) { ...PostFragment }
}
${POST_FRAGMENT}`,
  DeletePost: `mutation DeletePost($id: ID!) { deletePost(id: $id) { id } }`,
} as const;

export const DISCUSSION_DOCUMENTS = {
  createDiscussion: `mutation createDiscussion($title: String!, $actorId: ID!, $text: String!) {
  createDiscussion(title: $title, text: $text, actorId: $actorId) { ...DiscussionFields }
}
${DISCUSSION_FIELDS}`,
  replyToDiscussion: `mutation replyToDiscussion($discussionId: ID!, $text: String!) {
  replyToDiscussion(discussionId: $discussionId, text: $text) { ...DiscussionFields }
}
${DISCUSSION_FIELDS}`,
  getDiscussion: `query getDiscussion($slug: String!, $page: Int, $limit: Int) {
  discussion(slug: $slug) {
    comments(page: $page, limit: $limit) {
      total
      elements { id text actor { ...ActorFragment } insertedAt updatedAt deletedAt publishedAt }
    }
    ...DiscussionFields
  }
}
${DISCUSSION_FIELDS}`,
  updateDiscussion: `mutation updateDiscussion($discussionId: ID!, $title: String!) {
  updateDiscussion(discussionId: $discussionId, title: $title) { ...DiscussionFields }
}
${DISCUSSION_FIELDS}`,
  deleteDiscussion: `mutation deleteDiscussion($discussionId: ID!) { deleteDiscussion(discussionId: $discussionId) { id } }`,
  discussionCommentChanged: `subscription ($slug: String!) {
  discussionCommentChanged(slug: $slug) {
    id
    lastComment { id text updatedAt insertedAt deletedAt publishedAt actor { ...ActorFragment } }
  }
}
${ACTOR_FRAGMENT}`,
  GroupDiscussionsList: `query GroupDiscussionsList($name: String!, $discussionsPage: Int, $discussionsLimit: Int) {
  group(preferredUsername: $name) {
    id
    preferredUsername
    name
    domain
    discussions(page: $discussionsPage, limit: $discussionsLimit) { total elements { ...DiscussionBasicFields } }
  }
}
${DISCUSSION_BASIC_FIELDS}`,
} as const;
