/**
 * The one normal form of a DNS name that the test DNS, its merge and the
 * reading of mailauth's answer compare names in.
 *
 * @packageDocumentation
 */

/** A DNS name's normal form: trimmed, lower case, no trailing dot (`'Acme.Example.'` → `'acme.example'`). */
export function dnsName(name: string): string {
  return name.trim().toLowerCase().replace(/\.$/, '');
}
