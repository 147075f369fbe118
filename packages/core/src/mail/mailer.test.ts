import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { expect } from 'chai';
import { pino } from 'pino';
import { ConfigError } from '../config/load.js';
import { createLogger } from '../logger/logger.js';
import { readMailFolder } from '../testing/index.js';
import { createMailer } from './index.js';

describe('mailer', () => {
  let dir: string;

  beforeEach(async () => {
    dir = join(await mkdtemp(join(tmpdir(), 'agora-mail-')), 'mail', 'events');
  });

  afterEach(async () => {
    await rm(join(dir, '..', '..'), { recursive: true, force: true });
  });

  it('writes each message as a readable .eml file in the folder and logs only its path', async () => {
    const lines: string[] = [];
    const logger = pino(
      { level: 'info' },
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          lines.push(chunk.toString());
          done();
        },
      }),
    );
    const mailer = createMailer(
      { transport: 'folder', dir, smtpUrl: undefined, from: 'Agora <noreply@events.example>' },
      logger,
    );
    const link = `https://events.example/validate/${'a1b2c3d4'.repeat(8)}?token=x=y&next=%2Fhome`;

    const first = await mailer.send({
      to: 'Zoë <zoe@example.com>',
      subject: 'Confirmez votre compte — Agora',
      text: `Bonjour Zoë,\n\nConfirmez votre adresse : ${link}\n`,
      html: `<p>Bonjour Zoë, <a href="${link}">confirmez</a></p>`,
    });
    const second = await mailer.send({ to: 'bob@example.com', subject: 'Second', text: 'plain ascii' });

    const mails = await readMailFolder(dir);
    expect(mails.map((mail) => mail.path)).to.deep.equal([first.path, second.path]);
    expect(mails[0]).to.deep.include({
      to: 'Zoë <zoe@example.com>',
      subject: 'Confirmez votre compte — Agora',
      text: `Bonjour Zoë,\n\nConfirmez votre adresse : ${link}`,
    });
    expect(mails[1]).to.deep.include({ to: 'bob@example.com', subject: 'Second', text: 'plain ascii' });

    const raw = await readFile(first.path!, 'utf8');
    expect(raw).to.match(/^From: Agora <noreply@events\.example>\r\n/m);
    expect(raw).to.include(`Message-ID: ${first.messageId}`);

    const log = lines.join('');
    expect(log).to.include(JSON.stringify(first.path)).and.include(JSON.stringify(second.path));
    expect(log).not.to.include('a1b2c3d4');
  });

  it('reads an empty list from a folder nothing was written to', async () => {
    expect(await readMailFolder(dir)).to.deep.equal([]);
  });

  it('refuses the SMTP transport without SMTP_URL', () => {
    const logger = createLogger({ level: 'silent', name: 'mail-test' });
    expect(() =>
      createMailer({ transport: 'smtp', dir, smtpUrl: undefined, from: 'noreply@events.example' }, logger),
    ).to.throw(ConfigError, 'SMTP_URL');
  });
});
