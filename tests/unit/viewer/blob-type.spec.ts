/**
 * The viewer's attachment blobs (issue 31): a blob URL is of the viewer's
 * origin, so only raster images keep their declared type.
 */
import { test, expect } from '@playwright/test';
import { blobTypeFor } from '../../../src/viewer/api.ts';

test('an attachment declared as a page or script becomes an opaque download; raster images keep their type', () => {
  const table = Object.fromEntries(
    ['text/html', 'text/html; charset=utf-8', 'image/svg+xml', 'application/xhtml+xml', 'text/javascript', 'application/pdf', '', 'image/png', 'IMAGE/JPEG', 'image/gif; x=1'].map((t) => [t, blobTypeFor(t)]),
  );
  expect(table).toEqual({
    'text/html': 'application/octet-stream',
    'text/html; charset=utf-8': 'application/octet-stream',
    'image/svg+xml': 'application/octet-stream',
    'application/xhtml+xml': 'application/octet-stream',
    'text/javascript': 'application/octet-stream',
    'application/pdf': 'application/octet-stream',
    '': 'application/octet-stream',
    'image/png': 'image/png',
    'IMAGE/JPEG': 'image/jpeg',
    'image/gif; x=1': 'image/gif',
  });
});
