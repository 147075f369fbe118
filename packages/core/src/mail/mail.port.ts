export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html?: string;
}

export interface SentMail {
  messageId: string;
  /** The .eml file, with the folder transport. */
  path?: string;
}

export interface Mailer {
  send(message: MailMessage): Promise<SentMail>;
}
