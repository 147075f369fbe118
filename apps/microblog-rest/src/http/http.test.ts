import { request as httpRequest } from 'node:http';
import { expect } from 'chai';
import { startTestServer, type TestServer } from '../testing/server.js';

/** fetch() normalises some malformed requests before sending them; node:http sends them as written. */
function rawRequest(
  url: string,
  options: { method: string; headers?: Record<string, string>; body?: string },
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: options.method, headers: options.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          text: Buffer.concat(chunks).toString('utf8'),
        }),
      );
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

async function expectJsonError(
  response: Response,
  status: number,
): Promise<{ error: string; error_description?: string }> {
  expect(response.status).to.equal(status);
  expect(response.headers.get('content-type')).to.equal('application/json; charset=utf-8');
  const body = (await response.json()) as { error: string; error_description?: string };
  expect(body.error).to.be.a('string').and.not.equal('');
  expect(JSON.stringify(body)).to.not.match(/\n\s+at /); // no stack trace
  return body;
}

describe('HTTP conventions of the REST API', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer('http', { env: { BODY_LIMIT_BYTES: '2048' } });
  });
  after(async () => {
    await t?.stop();
  });

  describe('CORS', () => {
    for (const path of ['/api/v1/instance', '/api/v2/instance', '/.well-known/nodeinfo', '/nodeinfo/2.0']) {
      it(`lets any origin read ${path}, with Link and rate-limit headers exposed`, async () => {
        const response = await fetch(`${t.url}${path}`, { headers: { Origin: 'https://elk.example' } });
        expect(response.status).to.equal(200);
        expect(response.headers.get('access-control-allow-origin')).to.equal('*');
        const exposed = (response.headers.get('access-control-expose-headers') ?? '')
          .split(',')
          .map((h) => h.trim());
        expect(exposed).to.include.members([
          'Link',
          'X-RateLimit-Limit',
          'X-RateLimit-Remaining',
          'X-RateLimit-Reset',
        ]);
      });
    }

    it('sends CORS headers on API errors too, so browsers can read them', async () => {
      const response = await fetch(`${t.url}/api/v1/nothing-here`, {
        headers: { Origin: 'https://elk.example' },
      });
      expect(response.status).to.equal(404);
      expect(response.headers.get('access-control-allow-origin')).to.equal('*');
    });

    for (const path of ['/api/v1/statuses', '/oauth/token']) {
      it(`answers a preflight for ${path}`, async () => {
        const response = await fetch(`${t.url}${path}`, {
          method: 'OPTIONS',
          headers: {
            Origin: 'https://phanpy.example',
            'Access-Control-Request-Method': 'POST',
            'Access-Control-Request-Headers': 'authorization, content-type',
          },
        });
        expect(response.status).to.equal(204);
        expect(response.headers.get('access-control-allow-origin')).to.equal('*');
        expect(response.headers.get('access-control-allow-methods')).to.include('POST');
        expect(response.headers.get('access-control-allow-headers')).to.equal('authorization, content-type');
      });
    }

    it('does not open other paths to other origins', async () => {
      const response = await fetch(`${t.url}/health`, { headers: { Origin: 'https://elk.example' } });
      expect(response.headers.get('access-control-allow-origin')).to.equal(null);
    });
  });

  describe('errors are JSON', () => {
    it('answers 404 {"error":"Record not found"} for unknown /api paths, whatever the method', async () => {
      for (const [method, path] of [
        ['GET', '/api/v1/nothing-here'],
        ['GET', '/api/v3/instance'],
        ['DELETE', '/api/v1/nothing-here/1'],
        ['GET', '/api'],
      ] as const) {
        const body = await expectJsonError(await fetch(`${t.url}${path}`, { method }), 404);
        expect(body, `${method} ${path}`).to.deep.equal({ error: 'Record not found' });
      }
    });

    it('answers 404 JSON, not HTML, outside /api as well', async () => {
      await expectJsonError(await fetch(`${t.url}/no/such/page`), 404);
    });

    it('answers 400 for a malformed JSON body', async () => {
      const body = await expectJsonError(
        await fetch(`${t.url}/api/v1/statuses`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: '{"status": "hello",',
        }),
        400,
      );
      expect(body.error).to.equal('Malformed request body');
      expect(body.error_description).to.be.a('string');
    });

    it('answers 413 for a body over BODY_LIMIT_BYTES, JSON or form', async () => {
      const big = 'x'.repeat(4096);
      const json = await expectJsonError(
        await fetch(`${t.url}/api/v1/statuses`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ status: big }),
        }),
        413,
      );
      expect(json).to.deep.equal({
        error: 'Request body too large',
        error_description: 'The limit is 2048 bytes',
      });
      await expectJsonError(
        await fetch(`${t.url}/api/v1/statuses`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
          body: `status=${big}`,
        }),
        413,
      );
    });

    it('answers 415 for a write with a content type it does not read', async () => {
      const body = await expectJsonError(
        await fetch(`${t.url}/api/v1/statuses`, {
          method: 'POST',
          headers: { 'Content-Type': 'text/plain' },
          body: 'status=hello',
        }),
        415,
      );
      expect(body.error).to.equal('Unsupported Content-Type: text/plain');
      expect(body.error_description).to.include('application/json');
    });

    it('answers 405 with Allow for a method a known path does not take', async () => {
      const response = await fetch(`${t.url}/api/v1/instance`, { method: 'DELETE' });
      await expectJsonError(response, 405);
      expect(response.headers.get('allow')).to.equal('GET, HEAD, OPTIONS');
    });

    it('answers 400 JSON for a malformed percent-escape in the path', async () => {
      const response = await rawRequest(`${t.url}/nodeinfo/%E0%A4%A`, { method: 'GET' });
      expect(response.status).to.equal(400);
      expect(response.headers['content-type']).to.equal('application/json; charset=utf-8');
      expect(JSON.parse(response.text)).to.have.property('error');
    });

    it('keeps serving after all of the above', async () => {
      const response = await fetch(`${t.url}/api/v1/instance`);
      expect(response.status).to.equal(200);
      expect(await response.json()).to.have.property('uri');
    });
  });

  describe('GET /health', () => {
    it('reports the database as ok', async () => {
      const response = await fetch(`${t.url}/health`);
      expect(response.status).to.equal(200);
      expect(await response.json()).to.deep.equal({ status: 'ok', database: 'ok' });
    });
  });
});

describe('GET /health without a database', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer('health');
  });
  after(async () => {
    await t?.stop();
  });

  it('answers 503 with the reason, and the cached instance documents still answer', async () => {
    await t.dropDatabase();
    const response = await fetch(`${t.url}/health`);
    expect(response.status).to.equal(503);
    const body = (await response.json()) as { status: string; database: string };
    expect(body.status).to.equal('error');
    expect(body.database).to.be.a('string').and.not.equal('ok');
    expect((await fetch(`${t.url}/api/v1/instance`)).status).to.equal(200);
  });
});
