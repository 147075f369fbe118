import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import { ConfigError } from '../config/load.js';
import type { BaseServiceConfig } from '../config/service.js';
import type { Logger } from '../logger/logger.js';
import type { Mailer, MailMessage, SentMail } from './mail.port.js';

type MailConfig = BaseServiceConfig['mail'];

/** Outgoing mail: written to a folder (development default) or sent over SMTP. Bodies are never logged: they hold tokens. */
export function createMailer(config: MailConfig, logger: Logger): Mailer {
  const log = logger.child({ component: 'mail' });
  return config.transport === 'folder' ? folderMailer(config, log) : smtpMailer(config, log);
}

function folderMailer(config: MailConfig, logger: Logger): Mailer {
  // Renders the complete RFC 822 message (CRLF line ends), as an SMTP server would receive it.
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'windows' });
  let lastTime = 0;
  return {
    async send(message: MailMessage): Promise<SentMail> {
      const info = await transport.sendMail(envelope(config, message));
      // Strictly increasing, so file names sort in sending order even within one millisecond.
      lastTime = Math.max(Date.now(), lastTime + 1);
      // ':' is not allowed in Windows file names.
      const stamp = new Date(lastTime).toISOString().replaceAll(':', '-');
      const path = join(config.dir, `${stamp}-${randomBytes(4).toString('hex')}.eml`);
      await mkdir(config.dir, { recursive: true });
      await writeFile(path, info.message as Buffer, { flag: 'wx' });
      logger.info({ path, messageId: info.messageId }, 'mail written to folder');
      return { messageId: info.messageId, path };
    },
  };
}

function smtpMailer(config: MailConfig, logger: Logger): Mailer {
  if (!config.smtpUrl) throw new ConfigError(['SMTP_URL: required when MAIL_TRANSPORT is smtp']);
  const transport = nodemailer.createTransport(config.smtpUrl);
  return {
    async send(message: MailMessage): Promise<SentMail> {
      const info = await transport.sendMail(envelope(config, message));
      logger.info({ messageId: info.messageId }, 'mail sent');
      return { messageId: info.messageId };
    },
  };
}

function envelope(config: MailConfig, message: MailMessage) {
  return {
    from: config.from,
    to: message.to,
    subject: message.subject,
    text: message.text,
    ...(message.html === undefined ? {} : { html: message.html }),
  };
}
