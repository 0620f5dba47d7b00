import { test, expect } from '@playwright/test';
import { UpdateInboxRequestSchema, CreateInboxRequestSchema } from '../../src/wire/schemas.ts';

test('an inbox update with no field is refused, naming the fields to give', () => {
  const result = UpdateInboxRequestSchema.safeParse({});
  expect(result.success).toBe(false);
  expect(result.error?.issues[0]?.message).toContain('label, forwardTo');
});

test('a local part may not start with a dot', () => {
  expect(CreateInboxRequestSchema.safeParse({ localPart: '.alice' }).success).toBe(false);
  expect(CreateInboxRequestSchema.safeParse({ localPart: 'alice.smith+1' }).success).toBe(true);
});
