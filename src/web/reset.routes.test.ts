import assert from 'node:assert/strict';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { SMTPServer } from 'smtp-server';
import { Browser, submit } from '../../test/browser.js';
import { createAccount, PASSWORD, testContext, type TestContext } from '../../test/harness.js';
import { withContext } from '../../test/with-context.js';
import { landed, signedInBrowser, text } from '../../test/web-pages.js';
import { ADMIN_RESET_SECONDS, makeResetLink } from '../features/users/links.service.js';

/**
 * Password reset: by a one-time link an admin makes (bin/tickler user reset-link), and by e-mail
 * when SMTP_URL is set, through a real SMTP server started here (smtp-server), with a login.
 */

interface Received {
  readonly to: string[];
  readonly data: string;
}

/** An SMTP server on a free local port that wants user `tickler`, password `mail-pw`, over plain SMTP. */
async function smtpServer(): Promise<{ url: string; inbox: Received[]; next(): Promise<Received>; close(): Promise<void> }> {
  const inbox: Received[] = [];
  const waiting: Array<(m: Received) => void> = [];
  const server = new SMTPServer({
    // No TLS on this loopback test server; a real one offers STARTTLS, which nodemailer takes.
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    onAuth(auth, _session, callback) {
      if (auth.username === 'tickler' && auth.password === 'mail-pw') return callback(null, { user: 'tickler' });
      return callback(new Error('bad login'));
    },
    onData(stream, session, callback) {
      let data = '';
      stream.on('data', (c: Buffer) => (data += c.toString('utf8')));
      stream.on('end', () => {
        const m = { to: session.envelope.rcptTo.map((r) => r.address), data };
        const w = waiting.shift();
        if (w) w(m);
        else inbox.push(m);
        callback();
      });
    },
  });
  server.listen(0, '127.0.0.1');
  await once(server.server, 'listening');
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://tickler:mail-pw@127.0.0.1:${port}`,
    inbox,
    next: () => {
      const m = inbox.shift();
      return m ? Promise.resolve(m) : new Promise((resolve) => waiting.push(resolve));
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** The reset link in a message (quoted-printable soft breaks undone). */
function linkIn(data: string): string {
  const body = data.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
  const m = /http:\/\/127\.0\.0\.1:3000\/reset\?token=[A-Za-z0-9_-]+/.exec(body);
  if (!m) throw new Error(`no link in:\n${body}`);
  return m[0];
}

describe('password reset without SMTP_URL', () => {
  it('the page says to ask an admin; an admin’s link works once, ends every session', async () => {
    await withContext({}, async (ctx) => {
      const account = await createAccount(ctx);
      const b = new Browser(ctx.app);
      const page = await b.get('/reset');
      assert.match(text(page), /sends no e-mail\. Ask an admin.*bin\/tickler user reset-link/);
      assert.doesNotMatch(page.body, /name="email"/);
      const signedIn = await signedInBrowser(ctx, account);
      const link = await makeResetLink(ctx.deps, account.pk, ADMIN_RESET_SECONDS);
      const path = link.url.replace('http://127.0.0.1:3000', '');
      const form = await b.get(path);
      assert.match(form.body, /id="f-password"[^>]*autofocus/);
      assert.match(text(await landed(b, await submit(b, path, { password: 'short' }, '/reset/password'))), /at least 8 characters/);
      const done = await landed(b, await submit(b, path, { password: 'a newly chosen passphrase' }, '/reset/password'));
      assert.match(text(done), /Your password is changed/);
      assert.equal((await signedIn.get('/account')).statusCode, 303, 'every session of the account ended');
      const again = await b.get(path);
      assert.equal(again.statusCode, 400);
      assert.match(text(again), /cannot be used/);
      assert.equal((await submit(new Browser(ctx.app), '/signin', { email: account.email, password: 'a newly chosen passphrase' })).headers['location'], '/');
    });
  });

  it('a newer link replaces the older one; an expired one does not work', async () => {
    await withContext({}, async (ctx) => {
      const account = await createAccount(ctx);
      const first = await makeResetLink(ctx.deps, account.pk, ADMIN_RESET_SECONDS);
      const second = await makeResetLink(ctx.deps, account.pk, 60);
      const b = new Browser(ctx.app);
      assert.equal((await b.get(first.url.replace('http://127.0.0.1:3000', ''))).statusCode, 400);
      ctx.clock.advance(61);
      assert.equal((await b.get(second.url.replace('http://127.0.0.1:3000', ''))).statusCode, 400);
    });
  });
});

describe('password reset by e-mail (SMTP_URL)', () => {
  let smtp: Awaited<ReturnType<typeof smtpServer>>;
  let ctx: TestContext;
  before(async () => {
    smtp = await smtpServer();
    ctx = await testContext({ SMTP_URL: smtp.url, MAIL_FROM: 'Tickler <tickler@todo.example.org>', RATE_LIMIT_RESET_PER_ACCOUNT: '2/1h' });
  });
  after(async () => {
    await ctx.close();
    await smtp.close();
  });

  it('sends a link that sets a new password once; the page says the same for unknown addresses', async () => {
    const account = await createAccount(ctx);
    const b = new Browser(ctx.app);
    const sent = await landed(b, await submit(b, '/reset', { email: account.email.toUpperCase() }));
    assert.match(text(sent), /a link is on its way/);
    const message = await smtp.next();
    assert.deepEqual(message.to, [account.email]);
    assert.match(message.data, /From: Tickler <tickler@todo\.example\.org>/);
    assert.match(message.data, /Subject: Reset your Tickler password/);
    const path = linkIn(message.data).replace('http://127.0.0.1:3000', '');
    const done = await landed(b, await submit(b, path, { password: 'mailed new passphrase' }, '/reset/password'));
    assert.match(text(done), /Your password is changed/);
    assert.equal((await submit(new Browser(ctx.app), '/signin', { email: account.email, password: PASSWORD })).headers['location'], '/signin?next=%2F', 'the old password is gone');
    // An address without an account: the same answer, and no message.
    const unknown = await landed(b, await submit(b, '/reset', { email: 'nobody-here@example.org' }));
    assert.match(text(unknown), /If nobody-here@example\.org belongs to an account here, a link is on its way/);
  });

  it('is throttled per address typed (RATE_LIMIT_RESET_PER_ACCOUNT), unknown or not', async () => {
    const account = await createAccount(ctx);
    const b = new Browser(ctx.app, '198.51.100.7');
    for (let i = 0; i < 2; i++) await submit(b, '/reset', { email: account.email });
    await smtp.next();
    await smtp.next();
    const third = await submit(b, '/reset', { email: account.email });
    const page = await b.follow(third);
    assert.equal(page.statusCode, 429);
    assert.match(text(page), /Too many requests/);
    assert.equal(smtp.inbox.length, 0, 'no third message');
  });
});
