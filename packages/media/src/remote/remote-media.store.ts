import { QueryTypes, type Sequelize } from 'sequelize';
import type { MediaStorage } from '../storage/storage.port.js';
import type { RemoteMediaFile, RemoteMediaKeys, RemoteMediaKind } from './remote-media.types.js';

interface Row {
  url: string;
  kind: RemoteMediaKind;
  keys: RemoteMediaKeys | null;
  content_type: string | null;
  size: number | null;
  sha256: string | null;
  fetched_at: Date | null;
  failed_at: Date | null;
  error: string | null;
}

const COLUMNS = 'url, kind, keys, content_type, size, sha256, fetched_at, failed_at, error';

/** The `remote_media_files` table: url → stored keys, plus the last failure. */
export class RemoteMediaStore {
  constructor(
    private readonly sequelize: Sequelize,
    private readonly storage: MediaStorage,
  ) {}

  async findMany(urls: readonly string[]): Promise<Map<string, RemoteMediaFile>> {
    const found = new Map<string, RemoteMediaFile>();
    if (urls.length === 0) return found;
    const rows = await this.sequelize.query<Row>(
      `SELECT ${COLUMNS} FROM remote_media_files WHERE url = ANY($1::text[])`,
      { bind: [[...new Set(urls)]], type: QueryTypes.SELECT },
    );
    for (const row of rows) found.set(row.url, this.toFile(row));
    return found;
  }

  async find(url: string): Promise<RemoteMediaFile | null> {
    return (await this.findMany([url])).get(url) ?? null;
  }

  async recordCopy(
    url: string,
    kind: RemoteMediaKind,
    copy: { keys: RemoteMediaKeys; contentType: string; size: number; sha256: string },
    at: Date,
  ): Promise<RemoteMediaFile> {
    const [row] = await this.sequelize.query<Row>(
      `INSERT INTO remote_media_files (url, kind, keys, content_type, size, sha256, fetched_at)
       VALUES ($1, $2, $3::jsonb, $4, $5, $6, $7)
       ON CONFLICT (url) DO UPDATE SET kind = EXCLUDED.kind, keys = EXCLUDED.keys,
         content_type = EXCLUDED.content_type, size = EXCLUDED.size, sha256 = EXCLUDED.sha256,
         fetched_at = EXCLUDED.fetched_at, failed_at = NULL, error = NULL, updated_at = now()
       RETURNING ${COLUMNS}`,
      {
        bind: [url, kind, JSON.stringify(copy.keys), copy.contentType, copy.size, copy.sha256, at],
        type: QueryTypes.SELECT,
      },
    );
    return this.toFile(row as Row);
  }

  /** Remembers a failure; an earlier copy stays (a stale copy beats none) unless `dropCopy`. */
  async recordFailure(
    url: string,
    kind: RemoteMediaKind,
    error: string,
    at: Date,
    dropCopy = false,
  ): Promise<RemoteMediaFile> {
    const [row] = await this.sequelize.query<Row>(
      `INSERT INTO remote_media_files (url, kind, failed_at, error) VALUES ($1, $2, $3, $4)
       ON CONFLICT (url) DO UPDATE SET failed_at = EXCLUDED.failed_at, error = EXCLUDED.error,
         ${dropCopy ? 'keys = NULL, content_type = NULL, size = NULL, sha256 = NULL, fetched_at = NULL,' : ''}
         updated_at = now()
       RETURNING ${COLUMNS}`,
      { bind: [url, kind, at, error], type: QueryTypes.SELECT },
    );
    return this.toFile(row as Row);
  }

  private toFile(row: Row): RemoteMediaFile {
    const { keys } = row;
    return {
      url: row.url,
      kind: row.kind,
      localUrl: keys ? this.storage.url(keys.original) : null,
      localSmallUrl: keys?.small ? this.storage.url(keys.small) : null,
      keys,
      contentType: row.content_type,
      size: row.size,
      sha256: row.sha256,
      fetchedAt: row.fetched_at,
      failedAt: row.failed_at,
      error: row.error,
    };
  }
}
