import { ACTOR_FRAGMENT } from '../../graphql/web-client-documents.js';

// The reference web client's resource documents (src/graphql/resources.ts), as it sends them; they
// must validate against the schema and run.

const RESOURCE_METADATA_BASIC_FIELDS = `fragment ResourceMetadataBasicFields on ResourceMetadata {
  imageRemoteUrl
  height
  width
  type
  faviconUrl
}`;

export const RESOURCE_DOCUMENTS = {
  GetResource: `query GetResource($path: String!, $username: String!, $page: Int, $limit: Int) {
  resource(path: $path, username: $username) {
    id
    title
    summary
    url
    path
    type
    metadata { ...ResourceMetadataBasicFields authorName authorUrl providerName providerUrl html }
    parent { id path type }
    actor { ...ActorFragment }
    children(page: $page, limit: $limit) {
      total
      elements {
        id
        title
        summary
        url
        type
        path
        resourceUrl
        parent { id path type }
        publishedAt
        updatedAt
        insertedAt
        metadata { ...ResourceMetadataBasicFields }
      }
    }
  }
}
${ACTOR_FRAGMENT}
${RESOURCE_METADATA_BASIC_FIELDS}`,
  CreateResource: `mutation CreateResource($title: String!, $parentId: ID, $summary: String, $actorId: ID!,
  $resourceUrl: String, $type: String) {
  createResource(title: $title, parentId: $parentId, summary: $summary, actorId: $actorId,
    resourceUrl: $resourceUrl, type: $type) {
    id
    title
    summary
    url
    resourceUrl
    updatedAt
    path
    type
    metadata { ...ResourceMetadataBasicFields authorName authorUrl providerName providerUrl html }
  }
}
${RESOURCE_METADATA_BASIC_FIELDS}`,
  UpdateResource: `mutation UpdateResource($id: ID!, $title: String, $summary: String, $parentId: ID, $resourceUrl: String) {
  updateResource(id: $id, title: $title, parentId: $parentId, summary: $summary, resourceUrl: $resourceUrl) {
    id
    title
    summary
    url
    path
    type
    resourceUrl
    parent { id path }
  }
}`,
  DeleteResource: `mutation DeleteResource($id: ID!) {
  deleteResource(id: $id) { id }
}`,
  PreviewResourceLink: `mutation PreviewResourceLink($resourceUrl: String!) {
  previewResourceLink(resourceUrl: $resourceUrl) {
    title
    description
    ...ResourceMetadataBasicFields
    authorName
    authorUrl
    providerName
    providerUrl
    html
  }
}
${RESOURCE_METADATA_BASIC_FIELDS}`,
  GroupResourcesList: `query GroupResourcesList($name: String!, $resourcesPage: Int, $resourcesLimit: Int) {
  group(preferredUsername: $name) {
    id
    preferredUsername
    name
    domain
    resources(page: $resourcesPage, limit: $resourcesLimit) {
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
  }
}
${RESOURCE_METADATA_BASIC_FIELDS}`,
} as const;
