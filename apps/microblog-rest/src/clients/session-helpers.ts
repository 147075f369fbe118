import { expect } from 'chai';
import sharp from 'sharp';
import { NOTIFY_UPDATE_JOB } from '../modules/notifications/notification.service.js';
import { FAN_OUT_JOB, HOME_MERGE_JOB } from '../modules/statuses/status.service.js';
import { FormClient } from '../testing/form-client.js';
import type { TestServer } from '../testing/server.js';

/** Where the full-session clients' OAuth apps are sent back with their code. */
export const CALLBACK = 'https://client.example/callback';

/**
 * A person's part of the authorization code flow: opens the authorize URL the client built, signs in
 * on the page, approves, and returns the code the redirect carries.
 */
export async function approveInBrowser(
  server: TestServer,
  authorizeUrl: string,
  user: { email: string; password: string },
): Promise<string> {
  const browser = new FormClient(server.url);
  const url = new URL(authorizeUrl);
  const form = await browser.get(`${url.pathname}${url.search}`);
  expect(form.status, form.body).to.equal(200);
  const signedIn = await browser.submit(form, '/auth/sign_in', {
    email: user.email,
    password: user.password,
  });
  expect(signedIn.status, signedIn.body).to.equal(303);
  const approval = await browser.get(signedIn.headers.get('location')!);
  expect(approval.status, approval.body).to.equal(200);
  const done = await browser.submit(approval, '/oauth/authorize', { decision: 'approve' });
  expect(done.status, done.body).to.equal(302);
  const code = new URL(done.headers.get('location')!).searchParams.get('code');
  expect(code).to.be.a('string');
  return code!;
}

/** Runs the jobs a session's writes queued (fan-out, home merges, notification updates). */
export function settle(server: TestServer): Promise<unknown> {
  return server.ctx.queue.drain([FAN_OUT_JOB, HOME_MERGE_JOB, NOTIFY_UPDATE_JOB]);
}

/** A small PNG, as a phone's camera roll would give one. */
export function picture(): Promise<Buffer> {
  return sharp({ create: { width: 32, height: 24, channels: 3, background: { r: 200, g: 40, b: 90 } } })
    .png()
    .toBuffer();
}
