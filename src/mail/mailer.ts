import nodemailer from 'nodemailer';

export interface MailMessage {
  readonly to: string;
  readonly subject: string;
  readonly text: string;
}

/** Sends e-mail; the one kind the server sends is a password-reset link (and invitations). */
export interface Mailer {
  send(message: MailMessage): Promise<void>;
  close(): void;
}

/**
 * A mailer over SMTP_URL (smtp://user:pass@host:port, STARTTLS when the server offers it, or
 * smtps:// for TLS from the start), or null when SMTP_URL is not set: then the pages offer no
 * reset by e-mail and say to ask an admin.
 */
export function createMailer(smtpUrl: string | null, from: string): Mailer | null {
  if (smtpUrl === null) return null;
  // Connections are not pooled: the server sends a few messages an hour at most.
  const transport = nodemailer.createTransport(smtpUrl);
  return {
    async send(m: MailMessage): Promise<void> {
      await transport.sendMail({ from, to: m.to, subject: m.subject, text: m.text });
    },
    close: () => transport.close(),
  };
}
