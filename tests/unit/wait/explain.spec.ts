/**
 * The explanation of a timed-out wait is a pure function of what the wait saw:
 * a table of facts and the lines each must produce.
 */
import { test, expect } from '@playwright/test';
import { explainTimeout } from '../../../src/client/wait/explain.ts';
import type { TimeoutFacts } from '../../../src/client/wait/explain.ts';
import type { MessageSummary } from '../../../src/client/index.ts';

const ADDRESS = 'alice@inboxkit.example.com';

function summary(seq: number, subject: string, from: MessageSummary['from'] = { address: 'no-reply@acme.example', name: 'Acme' }): MessageSummary {
  return { id: `m${seq}`, inboxId: 'i1', seq, from, to: [{ address: ADDRESS, name: '' }], cc: [], subject, preview: '', receivedAt: `2026-01-01T10:00:0${seq % 10}.000Z`, size: 10, hasAttachments: false };
}

const base: TimeoutFacts = {
  call: 'waitForMessage',
  description: 'subject "Welcome"',
  address: ADDRESS,
  timeout: 1000,
  elapsedMs: 1049,
  count: 1,
  since: 'backlog',
  matchedSubjects: [],
  rejected: [],
  startedAfter: 0,
  returnedCount: 0,
  fallbackReason: null,
  polls: 0,
  lastPollError: null,
};

const refused =
  'This inbox has received no email at all. A common cause: the application refused the address before sending anything, with a validation error on its form ' +
  '(some email validators refuse reserved domains such as .test); look at the page in the trace or the screenshot, and use a domain the application accepts (inboxkitServer({ domain }), inboxkit serve --domain).';

const check = `Check that the application sent the mail to exactly ${ADDRESS}, and that its SMTP host and port point at this inbox service (not a real mail server or another instance).`;

const cases: Array<[string, Partial<TimeoutFacts>, string[]]> = [
  [
    'nothing arrived: it says so, with the time it waited, and what to check, naming an address the app refused as a common cause of an inbox that received nothing',
    {},
    [`waitForMessage timed out after 1000 ms waiting for a message matching subject "Welcome" at ${ADDRESS}.`, 'No message arrived that an earlier wait had not returned (1 s).', check, refused],
  ],
  [
    "an empty inbox waited on with since: 'now' also names the refused address",
    { since: 'now', startedAfter: null },
    [`waitForMessage timed out after 1000 ms waiting for a message matching subject "Welcome" at ${ADDRESS}.`, 'No message arrived since the wait started (1 s).', check, refused],
  ],
  [
    "nothing arrived with since: 'now': it names the ignored backlog",
    { since: 'now', startedAfter: 4, elapsedMs: 2500 },
    [
      `waitForMessage timed out after 1000 ms waiting for a message matching subject "Welcome" at ${ADDRESS}.`,
      'No message arrived since the wait started (2.5 s).',
      check,
      "Messages already in the inbox when the wait started (seq ≤ 4) were ignored (since: 'now').",
    ],
  ],
  [
    'messages that did not match are listed with sender, subject and what failed',
    {
      rejected: [
        { message: summary(1, 'Reset'), failed: ['subject "Reset" did not match "Welcome"'] },
        { message: summary(2, 'Hi', null), failed: ['subject "Hi" did not match "Welcome"'] },
      ],
    },
    [
      `waitForMessage timed out after 1000 ms waiting for a message matching subject "Welcome" at ${ADDRESS}.`,
      '2 messages arrived that did not match:',
      '  - 10:00:01.000 from Acme <no-reply@acme.example> "Reset": subject "Reset" did not match "Welcome"',
      '  - 10:00:02.000 from (no sender) "Hi": subject "Hi" did not match "Welcome"',
    ],
  ],
  [
    'waitForMessages says how many of how many it found, and that no other message came',
    { call: 'waitForMessages', count: 3, matchedSubjects: ['Invoice 1'], returnedCount: 1 },
    [
      `waitForMessages timed out after 1000 ms waiting for 3 messages matching subject "Welcome" at ${ADDRESS}.`,
      'Found 1 of 3: "Invoice 1".',
      'No other message arrived that an earlier wait had not returned (1 s).',
      check,
      '1 message already returned by earlier waits on this inbox handle was not considered again (each message is returned once per handle).',
    ],
  ],
  [
    'a stream that was unavailable and a failed last poll are both named',
    { fallbackReason: 'the stream failed: 404', polls: 1, lastPollError: new Error('GET /x failed with 500') },
    [
      `waitForMessage timed out after 1000 ms waiting for a message matching subject "Welcome" at ${ADDRESS}.`,
      'No message arrived that an earlier wait had not returned (1 s).',
      check,
      refused,
      'The event stream was unavailable (the stream failed: 404); the message list was polled 1 time.',
      'The last poll failed: GET /x failed with 500',
    ],
  ],
];

for (const [name, facts, lines] of cases) {
  test(`a timeout explanation: ${name}`, () => {
    expect(explainTimeout({ ...base, ...facts }).split('\n')).toEqual(lines);
  });
}

test('a timeout explanation lists the newest 20 of many mismatches and details only the newest 5', () => {
  const rejected = Array.from({ length: 25 }, (_, i) => ({ message: summary(i + 1, `Mail ${i + 1}`), failed: ['subject did not match'] }));
  const lines = explainTimeout({ ...base, rejected }).split('\n');
  expect(lines[1]).toBe('25 messages arrived that did not match (the newest 20 shown):');
  const listed = lines.slice(2);
  expect(listed).toHaveLength(20);
  expect(listed[0]).toContain('"Mail 6"');
  expect(listed[0]).not.toContain('did not match');
  expect(listed.filter((l) => l.endsWith(': subject did not match'))).toHaveLength(5);
  expect(listed[19]).toContain('"Mail 25": subject did not match');
});

test('a wait on a phone speaks of SMS and its number: what to check names the provider variables, and a text that did not match is shown by its start', () => {
  const phone = '+12025550101@inboxkit.example.com';
  const nothing = explainTimeout({ ...base, address: phone }).split('\n');
  expect(nothing[0]).toBe('waitForMessage timed out after 1000 ms waiting for a message matching subject "Welcome" at +12025550101.');
  expect(nothing[1]).toBe('No SMS arrived that an earlier wait had not returned (1 s).');
  expect(nothing[2]).toBe('Check that the application texted exactly +12025550101, through a provider SDK pointed at this inbox service (not the real provider or another instance).');
  expect(nothing[3]).toContain('This phone has received no SMS at all');
  expect(nothing[3]).toContain('INBOXKIT_TWILIO_BASE_URL');
  const text = { ...summary(1, ''), preview: 'Your Acme code is 123456', from: { address: 'Acme', name: '' } };
  const mismatch = explainTimeout({ ...base, address: phone, rejected: [{ message: text, failed: ['text does not match /nope/'] }] });
  expect(mismatch).toContain('from Acme text "Your Acme code is 123456": text does not match /nope/');
  expect(mismatch).not.toContain('""');
});
