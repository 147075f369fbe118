import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { expect } from 'chai';
import express, { Router } from 'express';
import { onlyItsPaths } from './route-prefixes.js';

// Routers entered only under their own paths answer every request exactly as when Express walks
// them all: case-insensitive paths, parameters, trailing slashes, routers whose middleware takes
// any path, and the order between routers that share a path.
describe('routers entered by their path prefixes', () => {
  let server: Server;
  let url: string;
  const seen: string[] = [];

  before(async () => {
    const app = express();
    const things = Router();
    things.get('/api/v1/things', (_req, res) => void res.json({ list: true }));
    things.get('/api/v1/things/:id', (req, res) => void res.json({ id: req.params.id }));
    // Middleware with no path: the router must be entered for every request.
    const everywhere = Router();
    everywhere.use((req, _res, next) => {
      seen.push(req.path);
      next();
    });
    // Two routers on one path: the first one's `next()` reaches the second.
    const first = Router();
    first.get('/api/v1/shared/:id', (req, res, next) => {
      if (req.params.id === 'first') return void res.json({ by: 'first' });
      next();
    });
    const second = Router();
    second.get('/api/v1/shared/:id', (_req, res) => void res.json({ by: 'second' }));
    for (const router of [things, everywhere, first, second]) app.use(onlyItsPaths(router));
    app.use((_req, res) => void res.status(404).json({ error: 'Not found' }));
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  const get = async (path: string) => {
    const response = await fetch(`${url}${path}`);
    return { status: response.status, json: (await response.json()) as unknown };
  };

  it('answers routes with parameters, any case and a trailing slash, as Express matches them', async () => {
    expect(await get('/api/v1/things')).to.deep.equal({ status: 200, json: { list: true } });
    expect(await get('/API/V1/Things/42')).to.deep.equal({ status: 200, json: { id: '42' } });
    expect(await get('/api/v1/things/')).to.deep.equal({ status: 200, json: { list: true } });
    expect(await get('/api/v1/thingsx')).to.deep.equal({ status: 404, json: { error: 'Not found' } });
  });

  it('enters a router whose middleware takes any path, and keeps the order between routers', async () => {
    seen.length = 0;
    expect(await get('/elsewhere')).to.deep.equal({ status: 404, json: { error: 'Not found' } });
    expect(seen).to.deep.equal(['/elsewhere']);
    expect(await get('/api/v1/shared/first')).to.deep.equal({ status: 200, json: { by: 'first' } });
    expect(await get('/api/v1/shared/other')).to.deep.equal({ status: 200, json: { by: 'second' } });
  });
});
