export * from './mail.port.js';
export * from './nodemailer.mailer.js';
