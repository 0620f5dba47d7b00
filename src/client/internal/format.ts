/**
 * {@link formatAddress}: how inboxkit writes a mail address in step titles,
 * error messages and reports.
 *
 * @packageDocumentation
 */
import type { Address } from '../../wire/schemas.ts';

/**
 * `Name <address>`, or the address alone when it has no display name; `none`
 * when there is no address at all.
 *
 * @example
 * ```ts
 * formatAddress({ name: 'Acme', address: 'no-reply@acme.example' }); // 'Acme <no-reply@acme.example>'
 * formatAddress(message.from, '(no sender)');
 * ```
 */
export function formatAddress(address: Address | null | undefined, none = '(none)'): string {
  if (!address) return none;
  return address.name ? `${address.name} <${address.address}>` : address.address;
}
