// A real SMTP server on 127.0.0.1 (npm smtp-server) that keeps what it receives, for tests that
// follow mailed links end to end.
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  to: string[];
  raw: string;
  /** The decoded text part (quoted-printable undone). */
  text: string;
}

export interface MailServer {
  url: string;
  mails: ReceivedMail[];
  /** Resolves with the first mail to `address` received after `since` mails, polling up to 10 s. */
  waitFor(address: string, since?: number): Promise<ReceivedMail>;
  close(): Promise<void>;
}

const decodeQuotedPrintable = (s: string): string =>
  s.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));

function textOf(raw: string): string {
  const split = raw.indexOf('\r\n\r\n');
  const headers = raw.slice(0, split);
  const body = raw.slice(split + 4);
  return /content-transfer-encoding:\s*quoted-printable/i.test(headers) ? decodeQuotedPrintable(body) : body;
}

export async function startMailServer(): Promise<MailServer> {
  const mails: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        mails.push({ to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()), raw, text: textOf(raw) });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    async waitFor(address, since = 0) {
      const deadline = Date.now() + 10_000;
      for (;;) {
        const found = mails.slice(since).find((m) => m.to.includes(address.toLowerCase()));
        if (found) return found;
        if (Date.now() > deadline) throw new Error(`no mail to ${address} within 10 s`);
        await new Promise((r) => setTimeout(r, 25));
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The token of the confirm link inside a mail ({base}/confirm-email#token=…). */
export function tokenIn(mail: ReceivedMail | string): string {
  const text = typeof mail === 'string' ? mail : mail.text;
  const m = /https?:\/\/[^\s/]+\/confirm-email#token=([A-Za-z0-9_-]+)/.exec(text);
  if (!m) throw new Error(`no confirm link in mail:\n${text}`);
  return m[1]!;
}
