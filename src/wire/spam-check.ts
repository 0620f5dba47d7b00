/**
 * Wire schema of the spam-check extension (`POST /messages/{id}/spam-check`):
 * the score a real spam filter (SpamAssassin's spamd, or Rspamd) gives a
 * stored message, rule by rule. Not part of the Disposable Inbox API
 * specification; servers that do not offer it answer 404.
 *
 * @packageDocumentation
 */
import { z } from 'zod';

/** One rule the scanner matched. */
export const SpamRuleSchema = z
  .object({
    name: z.string().meta({ description: 'The rule (SpamAssassin) or symbol (Rspamd) name, e.g. `MIME_HTML_ONLY`' }),
    score: z.number().meta({ description: 'Points the rule adds (negative: fewer)' }),
    description: z.string().meta({ description: "The scanner's own description of the rule" }),
    localOnly: z.boolean().meta({
      description: 'Fires only because the mail came straight from a local test app (loopback, no relays, no reverse DNS, trusted network, no DNS): reported apart and not counted in `score`',
    }),
  })
  .meta({ id: 'SpamRule' });

/** The result of a spam check. */
export const SpamCheckSchema = z
  .object({
    scanner: z.enum(['spamassassin', 'rspamd']).meta({ description: 'Which scanner scored the message' }),
    score: z.number().meta({ description: 'The score a receiving server would give: the scanner\'s total without the local-only rules' }),
    threshold: z.number().meta({ description: "The scanner's spam threshold (SpamAssassin's required score; Rspamd's add-header action score)" }),
    spam: z.boolean().meta({ description: '`score >= threshold`' }),
    scannerScore: z.number().meta({ description: "The scanner's own total, local-only rules included" }),
    rules: z.array(SpamRuleSchema).meta({ description: 'Every matched rule, highest score first' }),
    durationMs: z.number().int().nonnegative().meta({ description: 'How long the scanner took' }),
  })
  .meta({ id: 'SpamCheck' });

/** A spam check's result. */
export type SpamCheck = z.infer<typeof SpamCheckSchema>;
/** One matched rule of a spam check. */
export type SpamRule = z.infer<typeof SpamRuleSchema>;
