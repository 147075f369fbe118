import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { expect } from 'chai';
import express from 'express';
import { createLogger } from '@agora/core';
import { bodyParsers } from './body.js';
import { errorHandler } from './errors.js';

// The parsers on a bare app with an echo route: what a write endpoint will receive as req.body.
describe('request bodies', () => {
  let server: Server;
  let url: string;
  before(async () => {
    const app = express();
    app.use(bodyParsers(4096));
    app.post('/echo', (req, res) => {
      res.json({ body: (req.body as unknown) ?? null });
    });
    app.use(errorHandler(createLogger({ level: 'silent', name: 'test' })));
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/echo`;
  });
  after(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  async function echo(
    contentType: string | undefined,
    body: string,
  ): Promise<{ status: number; json: unknown }> {
    const headers: Record<string, string> = {};
    if (contentType !== undefined) headers['Content-Type'] = contentType;
    const response = await fetch(url, { method: 'POST', headers, body });
    return { status: response.status, json: await response.json() };
  }

  it('reads Rails-style form arrays and nested keys, as mobile apps send them', async () => {
    const { status, json } = await echo(
      'application/x-www-form-urlencoded',
      'status=hi&media_ids[]=1&media_ids[]=2&poll[options][]=yes&poll[options][]=no&poll[expires_in]=300',
    );
    expect(status).to.equal(200);
    expect(json).to.deep.equal({
      body: { status: 'hi', media_ids: ['1', '2'], poll: { options: ['yes', 'no'], expires_in: '300' } },
    });
  });

  it('reads JSON, including a charset parameter', async () => {
    const { json } = await echo('application/json; charset=utf-8', '{"status":"hi","media_ids":["1"]}');
    expect(json).to.deep.equal({ body: { status: 'hi', media_ids: ['1'] } });
  });

  it('lets multipart through to the route (its parser is mounted per route)', async () => {
    const { status } = await echo('multipart/form-data; boundary=x', '--x--\r\n');
    expect(status).to.equal(200);
  });

  it('refuses a body without a content type', async () => {
    const response = await fetch(url, { method: 'POST', body: new Uint8Array([1, 2, 3]) });
    expect(response.status).to.equal(415);
    expect(await response.json()).to.have.property('error', 'Missing Content-Type');
  });

  it('accepts an empty POST without a content type (actions like /favourite send none)', async () => {
    const response = await fetch(url, { method: 'POST' });
    expect(response.status).to.equal(200);
    expect(await response.json()).to.deep.equal({ body: null });
  });

  it('refuses JSON whose top level is not an object or array', async () => {
    const { status } = await echo('application/json', '"just a string"');
    expect(status).to.equal(400);
  });
});
