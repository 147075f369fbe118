import { createHash } from 'node:crypto';
import {
  buildNodeInfoDiscovery,
  NODEINFO_VERSIONS,
  nodeInfoContentType,
  type NodeInfoVersion,
} from '@agora/federation';
import type { Logger } from '@agora/core';
import { serializeInstanceV1, serializeInstanceV2 } from '../../entities/instance.js';
import { serializeNodeInfo } from '../../entities/nodeinfo.js';
import { serializeRule } from '../../entities/rule.js';
import type { InstanceService, InstanceView } from './instance.service.js';

export type InstanceDocumentName = 'v1' | 'v2' | 'rules' | 'nodeinfo' | `nodeinfo-${NodeInfoVersion}`;

/** A JSON document rendered once and sent as bytes until the next render. */
export interface RenderedDocument {
  readonly body: Buffer;
  readonly etag: string;
  readonly contentType: string;
  /** Content-Type, Content-Length and ETag, ready for writeHead. */
  readonly headers: Readonly<Record<string, string>>;
}

interface Snapshot {
  documents: Record<InstanceDocumentName, RenderedDocument>;
  renderedAt: number;
}

export interface InstanceDocumentsOptions {
  /** Usage counters may be this old; settings changes re-render at once. */
  ttlMs: number;
  logger: Logger;
  now?: () => number;
}

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * The public documents describing this instance (v1, v2, rules, NodeInfo), rendered from one view
 * and kept as bytes, so serving them costs no query and no serialization. A settings or rules change
 * re-renders before the change call returns; usage counters refresh in the background once older
 * than the TTL, while the previous bytes keep being served.
 */
export class InstanceDocuments {
  private current: Snapshot | undefined;
  private inflight: Promise<Snapshot> | undefined;
  // Bumped on every change, so a render that started before it never replaces a newer one.
  private generation = 0;
  private readonly now: () => number;

  constructor(
    private readonly service: InstanceService,
    private readonly options: InstanceDocumentsOptions,
  ) {
    this.now = options.now ?? Date.now;
  }

  async get(name: InstanceDocumentName): Promise<RenderedDocument> {
    const current = this.current;
    if (current === undefined) return (await this.refresh()).documents[name];
    if (this.now() - current.renderedAt > this.options.ttlMs) {
      this.refresh().catch((error: unknown) =>
        this.options.logger.error({ err: error }, 'refreshing the instance documents failed'),
      );
    }
    return current.documents[name];
  }

  /** Renders now unless a render is already under way (then shares it). */
  refresh(): Promise<Snapshot> {
    if (this.inflight === undefined) {
      const render: Promise<Snapshot> = this.render().finally(() => {
        if (this.inflight === render) this.inflight = undefined;
      });
      this.inflight = render;
    }
    return this.inflight;
  }

  /** Resolves once the render under way, if any, has finished; starts none. */
  async settled(): Promise<void> {
    await this.inflight?.catch(() => undefined);
  }

  /** Settings or rules changed: render afresh, ignoring any render that started before. */
  async invalidate(): Promise<void> {
    this.generation += 1;
    this.inflight = undefined;
    await this.refresh();
  }

  private async render(): Promise<Snapshot> {
    const generation = this.generation;
    const view = await this.service.view();
    const snapshot: Snapshot = { documents: renderAll(view), renderedAt: this.now() };
    if (generation === this.generation) this.current = snapshot;
    return snapshot;
  }
}

function renderAll(view: InstanceView): Snapshot['documents'] {
  const nodeinfo = Object.fromEntries(
    NODEINFO_VERSIONS.map((version) => [
      `nodeinfo-${version}`,
      rendered(serializeNodeInfo(version, view), nodeInfoContentType(version)),
    ]),
  ) as Record<`nodeinfo-${NodeInfoVersion}`, RenderedDocument>;
  return {
    v1: rendered(serializeInstanceV1(view), JSON_TYPE),
    v2: rendered(serializeInstanceV2(view), JSON_TYPE),
    rules: rendered(view.rules.map(serializeRule), JSON_TYPE),
    nodeinfo: rendered(buildNodeInfoDiscovery(view.publicUrl), JSON_TYPE),
    ...nodeinfo,
  };
}

function rendered(value: unknown, contentType: string): RenderedDocument {
  const body = Buffer.from(JSON.stringify(value), 'utf8');
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
  return {
    body,
    etag,
    contentType,
    headers: { 'Content-Type': contentType, 'Content-Length': String(body.length), ETag: etag },
  };
}
