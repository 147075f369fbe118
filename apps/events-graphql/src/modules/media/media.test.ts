import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'chai';
import sharp from 'sharp';
import { QueryTypes } from 'sequelize';
import type { Role } from '@agora/auth';
import {
  callHeaders,
  firstError,
  graphql,
  ok,
  readGraphQLResponse,
  signedInAccount,
  type GraphQLResponse,
} from '../../testing/graphql-client.js';
import { startTestServer, type TestServer } from '../../testing/test-server.js';

const LIMITS = { default: 200_000, avatar: 50_000, banner: 100_000 };

interface MediaResult {
  id: string;
  name: string;
  alt: string | null;
  url: string;
  contentType: string;
  size: number;
  metadata: { width: number; height: number; blurhash: string };
}

const MEDIA = 'id name alt url contentType size metadata { width height blurhash }';
const UPLOAD = `mutation($file: Upload!, $name: String!, $alt: String) {
  uploadMedia(file: $file, name: $name, alt: $alt) { ${MEDIA} } }`;

const headers = (token?: string) => callHeaders({ token });

/** The reference's convention: `query`, `variables` (JSON), and each Upload variable naming a part. */
async function referenceUpload(
  server: TestServer,
  query: string,
  variables: Record<string, unknown>,
  files: Record<string, { bytes: Buffer; filename: string; type?: string }>,
  token?: string,
): Promise<GraphQLResponse> {
  const form = new FormData();
  form.append('query', query);
  form.append('variables', JSON.stringify(variables));
  for (const [part, file] of Object.entries(files)) {
    form.append(
      part,
      new Blob([file.bytes], { type: file.type ?? 'application/octet-stream' }),
      file.filename,
    );
  }
  return readGraphQLResponse(
    await fetch(`${server.url}/api`, { method: 'POST', headers: headers(token), body: form }),
  );
}

/** The GraphQL multipart request spec: `operations`, `map`, then the files. */
async function specUpload(
  server: TestServer,
  query: string,
  variables: Record<string, unknown>,
  files: Array<{ path: string; bytes: Buffer; filename: string }>,
  token?: string,
): Promise<GraphQLResponse> {
  const form = new FormData();
  form.append('operations', JSON.stringify({ query, variables }));
  form.append('map', JSON.stringify(Object.fromEntries(files.map((file, index) => [index, [file.path]]))));
  files.forEach((file, index) => form.append(String(index), new Blob([file.bytes]), file.filename));
  return readGraphQLResponse(
    await fetch(`${server.url}/api`, { method: 'POST', headers: headers(token), body: form }),
  );
}

async function png(width: number, height: number, seed = 0): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: { r: seed % 256, g: 120, b: 200 } } })
    .png()
    .toBuffer();
}

describe('media', () => {
  let server: TestServer;
  let mediaDir: string;

  before(async () => {
    server = await startTestServer('media', {
      TRUST_PROXY: 'true',
      UPLOAD_LIMIT_BYTES: String(LIMITS.default),
      AVATAR_UPLOAD_LIMIT_BYTES: String(LIMITS.avatar),
      BANNER_UPLOAD_LIMIT_BYTES: String(LIMITS.banner),
    });
    mediaDir = join(server.ctx.config.dataDir, 'media', 'events');
  });
  after(() => server?.stop());

  let accounts = 0;
  /** A confirmed account with a session and one profile. */
  async function member(role: Role = 'USER') {
    const n = ++accounts;
    const { id, token } = await signedInAccount(server, `member${n}@example.org`, { role });
    const person = ok<{ id: string }>(
      await graphql(
        server.url,
        `
          mutation ($u: String!) {
            createPerson(preferredUsername: $u) {
              id
            }
          }
        `,
        { variables: { u: `member${n}` }, headers: headers(token) },
      ),
      'createPerson',
    );
    return { userId: id, token, personId: person.id };
  }

  /** Files in the media folder and rows in the media table: what a refused upload must not change. */
  async function stored(): Promise<{ files: number; rows: number }> {
    const entries = await readdir(mediaDir, { recursive: true, withFileTypes: true }).catch(() => []);
    const [row] = await server.ctx.sequelize.query<{ count: number }>(
      'SELECT count(*)::int AS count FROM media',
      {
        type: QueryTypes.SELECT,
      },
    );
    return { files: entries.filter((entry) => entry.isFile()).length, rows: row!.count };
  }

  it('uploads a PNG in the reference convention, then serves it with its type and byte ranges', async () => {
    const { token } = await member();
    const bytes = await png(64, 48);
    const media = ok<MediaResult>(
      await referenceUpload(
        server,
        UPLOAD,
        { file: 'picture.png', name: 'picture.png', alt: 'A blue square' },
        { 'picture.png': { bytes, filename: 'picture.png', type: 'image/png' } },
        token,
      ),
      'uploadMedia',
    );
    expect(media).to.deep.include({ name: 'picture.png', alt: 'A blue square', contentType: 'image/png' });
    expect(media.metadata).to.include({ width: 64, height: 48 });
    expect(media.metadata.blurhash).to.be.a('string').that.is.not.empty;
    expect(media.url.startsWith(`${server.ctx.config.http.publicUrl}/media/`)).to.equal(true);

    const read = ok<MediaResult>(
      await graphql(server.url, `query($id: ID!) { media(id: $id) { ${MEDIA} } }`, {
        variables: { id: media.id },
      }),
      'media',
    );
    expect(read).to.deep.equal(media);

    const whole = await fetch(media.url);
    expect(whole.status).to.equal(200);
    expect(whole.headers.get('content-type')).to.equal('image/png');
    const body = Buffer.from(await whole.arrayBuffer());
    expect(body.length).to.equal(media.size);
    const part = await fetch(media.url, { headers: { range: 'bytes=0-7' } });
    expect(part.status).to.equal(206);
    expect(part.headers.get('content-range')).to.equal(`bytes 0-7/${media.size}`);
    expect(Buffer.from(await part.arrayBuffer())).to.deep.equal(body.subarray(0, 8));
  });

  it('takes the file from a literal in the query too, as the reference tests send it', async () => {
    const { token } = await member();
    const media = ok<MediaResult>(
      await referenceUpload(
        server,
        `mutation { uploadMedia(file: "picture.png", name: "picture.png") { name contentType } }`,
        {},
        { 'picture.png': { bytes: await png(8, 8, 1), filename: 'picture.png' } },
        token,
      ),
      'uploadMedia',
    );
    expect(media).to.deep.include({ name: 'picture.png', contentType: 'image/png' });
  });

  it('uploads a JPEG with the multipart spec and serves it without its EXIF (GPS position included)', async () => {
    const { token } = await member();
    const jpeg = await sharp({ create: { width: 120, height: 80, channels: 3, background: '#c33' } })
      .jpeg()
      .withExif({ IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '48/1 51/1 24/1' } })
      .toBuffer();
    expect((await sharp(jpeg).metadata()).exif, 'EXIF before').to.not.equal(undefined);
    const media = ok<MediaResult>(
      await specUpload(
        server,
        UPLOAD,
        { file: null, name: 'holiday.jpg' },
        [{ path: 'variables.file', bytes: jpeg, filename: 'holiday.jpg' }],
        token,
      ),
      'uploadMedia',
    );
    expect(media.contentType).to.equal('image/jpeg');
    const served = Buffer.from(await (await fetch(media.url)).arrayBuffer());
    const metadata = await sharp(served).metadata();
    expect(metadata.exif).to.equal(undefined);
    expect(served.indexOf(Buffer.from([0x25, 0x88]))).to.equal(-1);
  });

  it('refuses HTML named .png and an oversize file, leaving no file and no row', async () => {
    const { token, personId } = await member();
    const before = await stored();
    const html = Buffer.from('<!doctype html><html><body><script>alert(1)</script></body></html>');
    const refused = firstError(
      await referenceUpload(
        server,
        UPLOAD,
        { file: 'evil.png', name: 'evil.png' },
        {
          'evil.png': { bytes: html, filename: 'evil.png', type: 'image/png' },
        },
        token,
      ),
    );
    expect(refused).to.deep.include({
      message: "File doesn't have an allowed MIME type.",
      code: 'unknown_error',
    });

    // Over every limit: refused while reading the request.
    const huge = await referenceUpload(
      server,
      UPLOAD,
      { file: 'big.png', name: 'big.png' },
      {
        'big.png': { bytes: Buffer.alloc(LIMITS.default + 1, 7), filename: 'big.png' },
      },
      token,
    );
    expect(huge.status).to.equal(413);
    expect(firstError(huge)).to.include({ code: 'payload_too_large' });

    // Under the request cap but over the avatar limit: refused by GraphQL.
    const avatar = firstError(
      await referenceUpload(
        server,
        `mutation($id: ID!, $file: Upload!) { updatePerson(id: $id, avatar: { media: { file: $file, name: "a" } }) { id } }`,
        { id: personId, file: 'avatar' },
        { avatar: { bytes: Buffer.alloc(LIMITS.avatar + 1, 7), filename: 'a.png' } },
        token,
      ),
    );
    expect(avatar).to.include({ message: 'file_too_large', code: 'file_too_large', status_code: 422 });
    expect(await stored()).to.deep.equal(before);
  });

  it('keeps part and file names out of paths', async () => {
    const { token } = await member();
    const name = '../../../../tmp/agora-escape.png';
    const media = ok<MediaResult>(
      await referenceUpload(
        server,
        UPLOAD,
        { file: name, name: 'x.png' },
        {
          [name]: { bytes: await png(10, 10, 2), filename: '../../../etc/passwd' },
        },
        token,
      ),
      'uploadMedia',
    );
    const path = new URL(media.url).pathname;
    expect(path).to.match(/^\/media\/media_attachments\/[A-Za-z0-9_-]+\/original\.png$/);
    expect((await fetch(`${server.url}/media/..%2F..%2Fpackage.json`)).status).to.equal(404);
  });

  it('sets an uploaded avatar on createPerson and reuses a media as banner on updatePerson', async () => {
    const { token, userId } = await member();
    const created = ok<{ id: string; avatar: MediaResult }>(
      await specUpload(
        server,
        `mutation($avatar: MediaInput) { createPerson(preferredUsername: "pictured", avatar: $avatar) {
           id avatar { ${MEDIA} } banner { url } } }`,
        { avatar: { media: { file: null, name: 'me.png', alt: 'Me' } } },
        [{ path: 'variables.avatar.media.file', bytes: await png(300, 300, 3), filename: 'me.png' }],
        token,
      ),
      'createPerson',
    );
    expect(created.avatar).to.deep.include({ name: 'me.png', alt: 'Me', contentType: 'image/png' });
    const person = ok<{ avatar: { url: string } }>(
      await graphql(
        server.url,
        `
          query ($id: ID!) {
            person(id: $id) {
              avatar {
                url
              }
            }
          }
        `,
        {
          variables: { id: created.id },
        },
      ),
      'person',
    );
    expect(person.avatar.url).to.equal(created.avatar.url);
    expect((await fetch(person.avatar.url)).status).to.equal(200);
    // Its ActivityPub document shows the same picture.
    const [actor] = await server.ctx.sequelize.query<{ avatar_url: string }>(
      'SELECT avatar_url FROM actors WHERE id = $1',
      { bind: [created.id], type: QueryTypes.SELECT },
    );
    expect(actor!.avatar_url).to.equal(created.avatar.url);

    const updated = ok<{ banner: { id: string } }>(
      await graphql(
        server.url,
        `
          mutation ($id: ID!, $mediaId: ID!) {
            updatePerson(id: $id, banner: { mediaId: $mediaId }) {
              banner {
                id
              }
            }
          }
        `,
        { variables: { id: created.id, mediaId: created.avatar.id }, headers: headers(token) },
      ),
      'updatePerson',
    );
    expect(updated.banner.id).to.equal(created.avatar.id);

    const stranger = await member();
    const refused = firstError(
      await graphql(
        server.url,
        `
          mutation ($id: ID!, $mediaId: ID!) {
            updatePerson(id: $id, avatar: { mediaId: $mediaId }) {
              id
            }
          }
        `,
        {
          variables: { id: stranger.personId, mediaId: created.avatar.id },
          headers: headers(stranger.token),
        },
      ),
    );
    expect(refused).to.include({ status_code: 403 });
    expect(userId).to.be.a('string');
  });

  it('lets only the owner remove a media (404 unknown, 403 others), and then deletes its files', async () => {
    const owner = await member();
    const other = await member();
    const media = ok<MediaResult>(
      await referenceUpload(
        server,
        UPLOAD,
        { file: 'f', name: 'f.png' },
        {
          f: { bytes: await png(20, 20, 4), filename: 'f.png' },
        },
        owner.token,
      ),
      'uploadMedia',
    );
    const REMOVE = `mutation($id: ID!) { removeMedia(id: $id) { id } }`;
    const byOther = firstError(
      await graphql(server.url, REMOVE, { variables: { id: media.id }, headers: headers(other.token) }),
    );
    expect(byOther).to.include({ code: 'unauthorized', status_code: 403 });
    const unknown = firstError(
      await graphql(server.url, REMOVE, { variables: { id: '999999' }, headers: headers(owner.token) }),
    );
    expect(unknown).to.include({ message: 'Resource not found', status_code: 404 });
    const missing = firstError(
      await graphql(
        server.url,
        `
          {
            media(id: "999999") {
              id
            }
          }
        `,
      ),
    );
    expect(missing).to.include({ message: 'Resource not found', status_code: 404 });

    expect(
      ok<{ id: string }>(
        await graphql(server.url, REMOVE, { variables: { id: media.id }, headers: headers(owner.token) }),
        'removeMedia',
      ),
    ).to.deep.equal({ id: media.id });
    expect((await fetch(media.url)).status).to.equal(404);
  });

  it('stores the same bytes of one user once, and deletes them with their last media', async () => {
    const { token } = await member();
    const bytes = await png(33, 33, 5);
    const upload = async (name: string) =>
      ok<MediaResult>(
        await referenceUpload(server, UPLOAD, { file: 'f', name }, { f: { bytes, filename: name } }, token),
        'uploadMedia',
      );
    const before = await stored();
    const first = await upload('one.png');
    const second = await upload('two.png');
    expect(second.id).to.not.equal(first.id);
    expect(second.url).to.equal(first.url);
    const after = await stored();
    expect(after.rows - before.rows).to.equal(2);
    // One original and one preview, for both rows.
    expect(after.files - before.files).to.equal(2);

    const REMOVE = `mutation($id: ID!) { removeMedia(id: $id) { id } }`;
    ok(
      await graphql(server.url, REMOVE, { variables: { id: first.id }, headers: headers(token) }),
      'removeMedia',
    );
    expect((await fetch(second.url)).status).to.equal(200);
    ok(
      await graphql(server.url, REMOVE, { variables: { id: second.id }, headers: headers(token) }),
      'removeMedia',
    );
    expect((await fetch(second.url)).status).to.equal(404);
    expect(await stored()).to.deep.equal(before);
  });

  it('shows media sizes and lists to the owner and moderators only', async () => {
    const owner = await member();
    const other = await member();
    const moderator = await member('MODERATOR');
    const uploaded: MediaResult[] = [];
    for (const seed of [6, 7, 8]) {
      uploaded.push(
        ok<MediaResult>(
          await referenceUpload(
            server,
            UPLOAD,
            { file: 'f', name: `${seed}.png` },
            {
              f: { bytes: await png(16, 16, seed), filename: `${seed}.png` },
            },
            owner.token,
          ),
          'uploadMedia',
        ),
      );
    }
    const total = uploaded.reduce((sum, media) => sum + media.size, 0);
    const SIZE = `query($id: ID!) { person(id: $id) { mediaSize } }`;
    const asOwner = await graphql(server.url, SIZE, {
      variables: { id: owner.personId },
      headers: headers(owner.token),
    });
    expect(ok<{ mediaSize: number }>(asOwner, 'person').mediaSize).to.equal(total);
    const asModerator = await graphql(server.url, SIZE, {
      variables: { id: owner.personId },
      headers: headers(moderator.token),
    });
    expect(ok<{ mediaSize: number }>(asModerator, 'person').mediaSize).to.equal(total);
    const asOther = await graphql(server.url, SIZE, {
      variables: { id: owner.personId },
      headers: headers(other.token),
    });
    expect(firstError(asOther).message).to.equal('unauthorized');

    const mine = ok<{ mediaSize: number; media: { total: number; elements: Array<{ id: string }> } }>(
      await graphql(
        server.url,
        `
          {
            loggedUser {
              mediaSize
              media(page: 2, limit: 2) {
                total
                elements {
                  id
                }
              }
            }
          }
        `,
        {
          headers: headers(owner.token),
        },
      ),
      'loggedUser',
    );
    expect(mine.mediaSize).to.equal(total);
    expect(mine.media.total).to.equal(3);
    // Newest first: the second page holds the oldest.
    expect(mine.media.elements.map((media) => media.id)).to.deep.equal([uploaded[0]!.id]);
  });

  it('refuses an upload from an anonymous caller and a missing file part', async () => {
    const anonymous = await referenceUpload(
      server,
      UPLOAD,
      { file: 'f', name: 'f.png' },
      {
        f: { bytes: await png(4, 4), filename: 'f.png' },
      },
    );
    expect(firstError(anonymous)).to.include({ status_code: 401 });
    const { token } = await member();
    const missing = await graphql(server.url, UPLOAD, {
      variables: { file: 'nothing', name: 'x' },
      headers: headers(token),
    });
    expect(firstError(missing)).to.include({ code: 'upload_missing' });
  });
});
