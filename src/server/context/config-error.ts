/**
 * The error of an option the service cannot use.
 *
 * @packageDocumentation
 */

/**
 * An option with a value the service cannot use. A `TypeError`, so existing
 * `instanceof TypeError` checks keep working; `option` names the option and
 * `reason` says what is wrong without the `inboxkit server:` prefix.
 */
export class ConfigError extends TypeError {
  override readonly name = 'ConfigError';
  /** The option, as named in {@link ConfigOptions} (`forwarding.attempts` for a nested one). */
  readonly option: string;
  /** What is wrong and what to give instead. */
  readonly reason: string;

  constructor(option: string, reason: string) {
    super(`inboxkit server: ${reason}`);
    this.option = option;
    this.reason = reason;
  }
}
