// E-mail for people of a workspace: invitations and password reset links. Sent through SMTP_URL
// when it is set (the server that tells owners about turned-off webhooks); without it nothing is
// sent and the inviting user passes the link on.
import nodemailer from 'nodemailer';

export interface TeamMessage {
  to: string;
  subject: string;
  text: string;
}

/** Sends a message; true once the mail server accepted it, false when there is none or it refused. */
export type TeamMailer = (message: TeamMessage) => Promise<boolean>;

export function createTeamMailer(opts: {
  smtpUrl: string | null;
  from: string;
  logger?: { warn(obj: object, msg: string): void };
}): TeamMailer {
  const transport = opts.smtpUrl ? nodemailer.createTransport(opts.smtpUrl) : null;
  return async (message) => {
    if (!transport) return false;
    try {
      await transport.sendMail({ from: opts.from, ...message });
      return true;
    } catch (err) {
      // The link is still shown to the inviting user, who can pass it on.
      opts.logger?.warn({ err: (err as Error).message }, 'could not send a password link by e-mail');
      return false;
    }
  };
}
