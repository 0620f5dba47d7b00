// Child process of authentication-check.spec.ts: a service where `import('mailauth')`
// fails (a module hook refuses to resolve it, as when the optional peer dependency
// is not installed) answers one authentication check and prints the answer.
import { register } from 'node:module';
import nodemailer from 'nodemailer';
import { startServer } from '../../../src/server/index.ts';

register(
  'data:text/javascript,' +
    encodeURIComponent(
      "export async function resolve(specifier, context, next) { if (specifier === 'mailauth') { throw Object.assign(new Error(\"Cannot find package 'mailauth'\"), { code: 'ERR_MODULE_NOT_FOUND' }); } return next(specifier, context); }",
    ),
);
const KEY = 'tm_cccccccccccccccccccccccccccccccc';
const server = await startServer({ apiKeys: [KEY] });
try {
  const headers = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };
  const inbox = (await (await fetch(`${server.apiUrl}/inboxes`, { method: 'POST', headers, body: '{}' })).json()).data;
  const smtp = nodemailer.createTransport({ host: '127.0.0.1', port: server.smtpPort, secure: false, ignoreTLS: true });
  await smtp.sendMail({ from: 'hello@acme.example', to: inbox.address, subject: 'x', text: 'x' });
  smtp.close();
  const [message] = (await (await fetch(`${server.apiUrl}/inboxes/${inbox.id}/messages`, { headers })).json()).data.items;
  const res = await fetch(`${server.apiUrl}/messages/${message.id}/authentication`, { method: 'POST', headers, body: JSON.stringify({ dns: {} }) });
  process.stdout.write(JSON.stringify({ status: res.status, body: await res.json() }));
} finally {
  await server.close();
}
