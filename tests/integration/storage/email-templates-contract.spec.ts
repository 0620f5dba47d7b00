/**
 * The store's email templates (issue 48), on every backend: a registration
 * is found by its caller, provider and id only, replaced in place, bounded
 * per caller (the oldest go), and removed once.
 */
import { test, expect } from '@playwright/test';
import { BACKENDS } from '../../support/backends.ts';
import type { Store } from '../../../src/server/storage/contract/types.ts';

const T0 = 1_800_000_000_000;
const key = (owner: string, id: string, provider = 'sendgrid') => ({ owner, provider, id });

for (const backend of BACKENDS) {
  test.describe(`the ${backend.name} store`, () => {
    test.skip(backend.skip !== null, backend.skip ?? '');
    let store: Store;
    let close: () => Promise<void>;

    test.beforeEach(async () => {
      ({ store, close } = await backend.open());
    });
    test.afterEach(async () => close());

    test('a template is found by its caller, provider and id, and by nothing else', async () => {
      await store.putEmailTemplate(key('alice', 'd-1'), { subject: 'Hi {{name}}', html: '<p>{{code}}</p>', text: null }, T0, 10);
      expect(await store.findEmailTemplate(key('alice', 'd-1'))).toEqual({ subject: 'Hi {{name}}', html: '<p>{{code}}</p>', text: null });
      expect(await store.findEmailTemplate(key('bob', 'd-1'))).toBeNull();
      expect(await store.findEmailTemplate(key('alice', 'd-1', 'mailgun'))).toBeNull();
      expect(await store.findEmailTemplate(key('alice', 'd-2'))).toBeNull();
    });

    test('registering a template again replaces it in place', async () => {
      await store.putEmailTemplate(key('alice', 'd-1'), { subject: 'one', html: null, text: 'first' }, T0, 10);
      await store.putEmailTemplate(key('alice', 'd-1'), { subject: 'two', html: '<b>x</b>', text: null }, T0 + 1, 10);
      expect(await store.findEmailTemplate(key('alice', 'd-1'))).toEqual({ subject: 'two', html: '<b>x</b>', text: null });
    });

    test('a caller keeps its newest templates up to its bound, the oldest going first, and another caller\'s are untouched', async () => {
      await store.putEmailTemplate(key('bob', 'kept'), { subject: 's', html: null, text: 't' }, T0, 2);
      for (const [n, id] of ['a', 'b', 'c'].entries()) await store.putEmailTemplate(key('alice', id), { subject: id, html: null, text: id }, T0 + n, 2);
      expect(await store.findEmailTemplate(key('alice', 'a'))).toBeNull();
      expect((await store.findEmailTemplate(key('alice', 'b')))?.subject).toBe('b');
      expect((await store.findEmailTemplate(key('alice', 'c')))?.subject).toBe('c');
      expect((await store.findEmailTemplate(key('bob', 'kept')))?.subject).toBe('s');
    });

    test('a template is removed once; a second removal finds nothing', async () => {
      await store.putEmailTemplate(key('alice', 'd-1'), { subject: 's', html: null, text: 't' }, T0, 10);
      expect(await store.deleteEmailTemplate(key('alice', 'd-1'))).toBe(true);
      expect(await store.deleteEmailTemplate(key('alice', 'd-1'))).toBe(false);
      expect(await store.findEmailTemplate(key('alice', 'd-1'))).toBeNull();
    });
  });
}
