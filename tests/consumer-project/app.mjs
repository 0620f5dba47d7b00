// The application under test of the consumer test (tests/integration/consumer):
// a sign-up page that sends a confirmation link over SMTP to the inbox service,
// as a user's app would, configured through INBOXKIT_SMTP_HOST / INBOXKIT_SMTP_PORT.
import { createServer } from 'node:http';
import { randomUUID } from 'node:crypto';
import { URLSearchParams } from 'node:url';
import nodemailer from 'nodemailer';

const port = Number(process.env.PORT ?? 3000);
const origin = `http://127.0.0.1:${port}`;
const mailer = nodemailer.createTransport({ host: process.env.INBOXKIT_SMTP_HOST, port: Number(process.env.INBOXKIT_SMTP_PORT), secure: false, ignoreTLS: true });
const tokens = new Set();

const page = (title, body) => `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body>${body}</body></html>`;

createServer(async (req, res) => {
  const url = new URL(req.url ?? '/', origin);
  res.setHeader('content-type', 'text/html; charset=utf-8');
  if (req.method === 'POST' && url.pathname === '/signup') {
    let body = '';
    for await (const chunk of req) body += chunk;
    const email = new URLSearchParams(body).get('email') ?? '';
    const token = randomUUID();
    tokens.add(token);
    await mailer.sendMail({
      from: 'App <no-reply@app.example>',
      to: email,
      subject: 'Confirm your email',
      html: `<p>Welcome!</p><p><a href="${origin}/confirm?token=${token}">Confirm</a> your address.</p>`,
    });
    res.end(page('Check your inbox', '<h1>Check your inbox</h1>'));
  } else if (url.pathname === '/signup') {
    res.end(page('Sign up', '<form method="post"><label>Email <input name="email" type="email"></label><button>Sign up</button></form>'));
  } else if (url.pathname === '/confirm' && tokens.delete(url.searchParams.get('token') ?? '')) {
    res.end(page('Confirmed', '<h1>Email confirmed</h1>'));
  } else {
    res.statusCode = url.pathname === '/' ? 200 : 404;
    res.end(page('App', '<h1>App</h1>'));
  }
}).listen(port, '127.0.0.1');
