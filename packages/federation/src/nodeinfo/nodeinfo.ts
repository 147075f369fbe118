/**
 * NodeInfo (http://nodeinfo.diaspora.software): the discovery document at /.well-known/nodeinfo and
 * the schema 2.0 / 2.1 documents it links to. Pure builders; each app mounts them on its own routes.
 */

export const NODEINFO_VERSIONS = ['2.0', '2.1'] as const;
export type NodeInfoVersion = (typeof NODEINFO_VERSIONS)[number];

/** Protocol and service names the 2.0/2.1 schemas allow (closed enums in the JSON schema). */
export type NodeInfoProtocol =
  | 'activitypub'
  | 'buddycloud'
  | 'dfrn'
  | 'diaspora'
  | 'libertree'
  | 'ostatus'
  | 'pumpio'
  | 'tent'
  | 'xmpp'
  | 'zot';

export type NodeInfoInboundService =
  'atom1.0' | 'gnusocial' | 'imap' | 'pnut' | 'pop3' | 'pumpio' | 'rss2.0' | 'twitter';

export type NodeInfoOutboundService =
  | 'atom1.0'
  | 'blogger'
  | 'buddycloud'
  | 'diaspora'
  | 'dreamwidth'
  | 'drupal'
  | 'facebook'
  | 'friendica'
  | 'gnusocial'
  | 'google'
  | 'insanejournal'
  | 'libertree'
  | 'linkedin'
  | 'livejournal'
  | 'mediagoblin'
  | 'myspace'
  | 'pinterest'
  | 'pnut'
  | 'posterous'
  | 'pumpio'
  | 'redmatrix'
  | 'rss2.0'
  | 'smtp'
  | 'tent'
  | 'tumblr'
  | 'twitter'
  | 'wordpress'
  | 'xmpp';

export interface NodeInfoSoftware {
  /** Lowercase letters, digits and dashes only (`^[a-z0-9-]+$` in the schema). */
  name: string;
  version: string;
  /** 2.1 only: the source code repository URL. */
  repository?: string;
  /** 2.1 only: the software's home page URL. */
  homepage?: string;
}

export interface NodeInfoUsage {
  users: { total: number; activeMonth: number; activeHalfyear: number };
  localPosts: number;
  /** Omitted when the software has no notion of comments distinct from posts. */
  localComments?: number;
}

/** What a service knows about itself; `buildNodeInfo` shapes it for one schema version. */
export interface NodeInfoInput {
  software: NodeInfoSoftware;
  protocols: NodeInfoProtocol[];
  services?: { inbound: NodeInfoInboundService[]; outbound: NodeInfoOutboundService[] };
  openRegistrations: boolean;
  usage: NodeInfoUsage;
  /** Free-form; clients dereference it (megalodon's detector reads `metadata.upstream.name`). */
  metadata: Record<string, unknown>;
}

export interface NodeInfoDocument {
  version: NodeInfoVersion;
  software: NodeInfoSoftware;
  protocols: NodeInfoProtocol[];
  services: { inbound: NodeInfoInboundService[]; outbound: NodeInfoOutboundService[] };
  openRegistrations: boolean;
  usage: NodeInfoUsage;
  metadata: Record<string, unknown>;
}

export interface NodeInfoLink {
  rel: string;
  href: string;
}

export interface NodeInfoDiscovery {
  links: NodeInfoLink[];
}

const SOFTWARE_NAME = /^[a-z0-9-]+$/;

/** The schema URI of a version; it is the `rel` of its discovery link. */
export function nodeInfoSchema(version: NodeInfoVersion): string {
  return `http://nodeinfo.diaspora.software/ns/schema/${version}`;
}

/** The media type a NodeInfo document of `version` is served with. */
export function nodeInfoContentType(version: NodeInfoVersion): string {
  return `application/json; profile="${nodeInfoSchema(version)}#"`;
}

export function isNodeInfoVersion(value: string): value is NodeInfoVersion {
  return (NODEINFO_VERSIONS as readonly string[]).includes(value);
}

/** The path a version is served at, relative to the public base URL. */
export function nodeInfoPath(version: NodeInfoVersion): string {
  return `/nodeinfo/${version}`;
}

/** The JRD-style document served at `/.well-known/nodeinfo`: one link per supported version. */
export function buildNodeInfoDiscovery(
  publicUrl: string,
  versions: readonly NodeInfoVersion[] = NODEINFO_VERSIONS,
): NodeInfoDiscovery {
  const base = publicUrl.replace(/\/+$/, '');
  return {
    links: versions.map((version) => ({
      rel: nodeInfoSchema(version),
      href: `${base}${nodeInfoPath(version)}`,
    })),
  };
}

/** A NodeInfo document of `version`; throws when the input breaks the schema (a programming error). */
export function buildNodeInfo(version: NodeInfoVersion, input: NodeInfoInput): NodeInfoDocument {
  if (!SOFTWARE_NAME.test(input.software.name)) {
    throw new TypeError(`NodeInfo software.name must match ${SOFTWARE_NAME}, got "${input.software.name}"`);
  }
  if (input.protocols.length === 0) {
    throw new TypeError('NodeInfo needs at least one protocol');
  }
  const software: NodeInfoSoftware = { name: input.software.name, version: input.software.version };
  // repository and homepage exist only in the 2.1 schema, whose 2.0 counterpart forbids extra keys.
  if (version === '2.1') {
    if (input.software.repository !== undefined) software.repository = input.software.repository;
    if (input.software.homepage !== undefined) software.homepage = input.software.homepage;
  }
  const usage: NodeInfoUsage = {
    users: {
      total: input.usage.users.total,
      activeMonth: input.usage.users.activeMonth,
      activeHalfyear: input.usage.users.activeHalfyear,
    },
    localPosts: input.usage.localPosts,
  };
  if (input.usage.localComments !== undefined) usage.localComments = input.usage.localComments;
  return {
    version,
    software,
    protocols: [...input.protocols],
    services: {
      inbound: [...(input.services?.inbound ?? [])],
      outbound: [...(input.services?.outbound ?? [])],
    },
    openRegistrations: input.openRegistrations,
    usage,
    metadata: input.metadata,
  };
}
