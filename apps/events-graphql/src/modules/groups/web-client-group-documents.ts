import {
  ACTOR_FRAGMENT,
  ADDRESS_FRAGMENT,
  EVENT_OPTIONS_FRAGMENT,
  TAG_FRAGMENT,
} from '../../graphql/web-client-documents.js';

// The reference web client's group and member documents (src/graphql/group.ts, member.ts, actor.ts),
// as it sends them; they must validate against the schema and run.

/** Its POST_BASIC_FIELDS (post.ts, not among the stored sources): the Post fields of the current schema it lists. */
const POST_BASIC_FIELDS = `fragment PostBasicFields on Post {
  id
  slug
  title
  url
  updatedAt
  insertedAt
  publishAt
  draft
  visibility
  author { ...ActorFragment }
  attributedTo { ...ActorFragment }
  picture { id url name }
  tags { ...TagFragment }
}`;

const RESOURCE_METADATA_BASIC_FIELDS = `fragment ResourceMetadataBasicFields on ResourceMetadata {
  imageRemoteUrl
  height
  width
  type
  faviconUrl
}`;

const GROUP_BASIC_FIELDS = `fragment GroupBasicFields on Group {
  ...ActorFragment
  suspended
  visibility
  openness
  manuallyApprovesFollowers
  physicalAddress { description street locality postalCode region country geom type id originId url }
  avatar { id url name metadata { width height blurhash } }
  banner { id url name metadata { width height blurhash } }
  organizedEvents(
    afterDatetime: $afterDateTime
    beforeDatetime: $beforeDateTime
    page: $organisedEventsPage
    limit: $organisedEventsLimit
  ) {
    elements {
      id
      uuid
      title
      beginsOn
      endsOn
      status
      draft
      longEvent
      language
      options { maximumAttendeeCapacity }
      participantStats { participant notApproved }
      attributedTo { ...ActorFragment }
      organizerActor { ...ActorFragment }
      picture { id url }
      physicalAddress { ...AdressFragment }
      options { ...EventOptions }
      tags { ...TagFragment }
    }
    total
  }
  posts(page: $postsPage, limit: $postsLimit) {
    total
    elements { ...PostBasicFields }
  }
  members { total }
}
${ACTOR_FRAGMENT}
${ADDRESS_FRAGMENT}
${EVENT_OPTIONS_FRAGMENT}
${TAG_FRAGMENT}
${POST_BASIC_FIELDS}`;

const GROUP_FULL_FIELDS = `fragment GroupFullFields on Group {
  ...GroupBasicFields
  members(page: $membersPage, limit: $membersLimit) {
    elements { id role actor { ...ActorFragment } insertedAt }
    total
  }
  resources(page: 1, limit: 3) {
    elements {
      id
      title
      resourceUrl
      summary
      updatedAt
      type
      path
      metadata { ...ResourceMetadataBasicFields }
    }
    total
  }
  todoLists {
    elements {
      id
      title
      todos {
        elements { id title status dueDate assignedTo { id preferredUsername } }
        total
      }
    }
    total
  }
}
${GROUP_BASIC_FIELDS}
${RESOURCE_METADATA_BASIC_FIELDS}`;

const MEMBER_FRAGMENT = `fragment MemberFragment on Member {
  id
  role
  parent { ...ActorFragment }
  actor { ...ActorFragment }
  insertedAt
}
${ACTOR_FRAGMENT}`;

const MEMBERSHIP_ELEMENTS = `total
  elements {
    id
    role
    parent { ...ActorFragment }
    invitedBy { ...ActorFragment }
    insertedAt
    updatedAt
  }`;

export const GROUP_DOCUMENTS = {
  FetchGroupPublic: `query FetchGroupPublic(
  $name: String!
  $afterDateTime: DateTime
  $beforeDateTime: DateTime
  $organisedEventsPage: Int
  $organisedEventsLimit: Int
  $postsPage: Int
  $postsLimit: Int
) {
  group(preferredUsername: $name) { ...GroupBasicFields }
}
${GROUP_BASIC_FIELDS}`,
  GetGroup: `query GetGroup(
  $id: ID!
  $afterDateTime: DateTime
  $beforeDateTime: DateTime
  $organisedEventsPage: Int
  $organisedEventsLimit: Int
  $postsPage: Int
  $postsLimit: Int
  $membersPage: Int
  $membersLimit: Int
) {
  getGroup(id: $id) { mediaSize ...GroupFullFields }
}
${GROUP_FULL_FIELDS}`,
  ListGroups: `query ListGroups($preferredUsername: String, $name: String, $domain: String, $local: Boolean,
  $suspended: Boolean, $page: Int, $limit: Int) {
  groups(preferredUsername: $preferredUsername, name: $name, domain: $domain, local: $local,
    suspended: $suspended, page: $page, limit: $limit) {
    elements {
      ...ActorFragment
      suspended
      avatar { id url }
      banner { id url }
      organizedEvents { elements { id uuid title status beginsOn } total }
    }
    total
  }
}
${ACTOR_FRAGMENT}`,
  CreateGroup: `mutation CreateGroup($preferredUsername: String!, $name: String!, $summary: String, $avatar: MediaInput,
  $banner: MediaInput, $physicalAddress: AddressInput, $visibility: GroupVisibility, $openness: Openness,
  $manuallyApprovesFollowers: Boolean) {
  createGroup(preferredUsername: $preferredUsername, name: $name, summary: $summary, banner: $banner,
    avatar: $avatar, physicalAddress: $physicalAddress, visibility: $visibility, openness: $openness,
    manuallyApprovesFollowers: $manuallyApprovesFollowers) {
    ...ActorFragment
    banner { id url }
  }
}
${ACTOR_FRAGMENT}`,
  GroupTimeline: `query GroupTimeline($preferredUsername: String!, $type: ActivityType, $author: ActivityAuthor,
  $page: Int, $limit: Int) {
  group(preferredUsername: $preferredUsername) {
    ...ActorFragment
    activity(type: $type, author: $author, page: $page, limit: $limit) {
      total
      elements {
        id
        insertedAt
        subject
        subjectParams { key value }
        type
        author { ...ActorFragment }
        group { ...ActorFragment }
        object {
          ... on Event { id title }
          ... on Post { id title }
          ... on Member { id actor { ...ActorFragment } }
          ... on Resource { id title path type }
          ... on Discussion { id title slug }
          ... on Comment { id }
          ... on Group { ...ActorFragment visibility openness physicalAddress { id originId } banner { id url } }
        }
      }
    }
  }
}
${ACTOR_FRAGMENT}`,
  GroupMembers: `query GroupMembers($groupName: String!, $name: String, $roles: String, $page: Int, $limit: Int) {
  group(preferredUsername: $groupName) {
    ...ActorFragment
    members(name: $name, page: $page, limit: $limit, roles: $roles) {
      elements { id role actor { ...ActorFragment } insertedAt }
      total
    }
  }
}
${ACTOR_FRAGMENT}`,
  JoinGroup: `mutation JoinGroup($groupId: ID!) { joinGroup(groupId: $groupId) { ...MemberFragment } }
${MEMBER_FRAGMENT}`,
  InviteMember: `mutation InviteMember($groupId: ID!, $targetActorUsername: String!) {
  inviteMember(groupId: $groupId, targetActorUsername: $targetActorUsername) { ...MemberFragment }
}
${MEMBER_FRAGMENT}`,
  AcceptInvitation: `mutation AcceptInvitation($id: ID!) { acceptInvitation(id: $id) { ...MemberFragment } }
${MEMBER_FRAGMENT}`,
  ApproveMember: `mutation ApproveMember($memberId: ID!) { approveMember(memberId: $memberId) { ...MemberFragment } }
${MEMBER_FRAGMENT}`,
  UpdateMember: `mutation UpdateMember($memberId: ID!, $role: MemberRoleEnum!) {
  updateMember(memberId: $memberId, role: $role) { id role }
}`,
  RemoveMember: `mutation RemoveMember($memberId: ID!, $exclude: Boolean) {
  removeMember(memberId: $memberId, exclude: $exclude) { id }
}`,
  LeaveGroup: `mutation LeaveGroup($groupId: ID!) { leaveGroup(groupId: $groupId) { id } }`,
  LoggedUserMemberships: `query LoggedUserMemberships($membershipName: String, $page: Int, $limit: Int) {
  loggedUser {
    id
    memberships(name: $membershipName, page: $page, limit: $limit) {
      total
      elements {
        id
        role
        actor { ...ActorFragment }
        parent {
          ...ActorFragment
          organizedEvents { elements { id title picture { id url } } total }
        }
        invitedBy { ...ActorFragment }
      }
    }
  }
}
${ACTOR_FRAGMENT}`,
  PersonGroupMemberships: `query PersonGroupMemberships($id: ID!, $groupId: ID) {
  person(id: $id) { id memberships(groupId: $groupId) { ${MEMBERSHIP_ELEMENTS} } }
}
${ACTOR_FRAGMENT}`,
  GroupMembershipSubscriptionChanged: `subscription GroupMembershipSubscriptionChanged($actorId: ID!, $group: String!) {
  groupMembershipChanged(personId: $actorId, group: $group) { id memberships { ${MEMBERSHIP_ELEMENTS} } }
}
${ACTOR_FRAGMENT}`,
} as const;
