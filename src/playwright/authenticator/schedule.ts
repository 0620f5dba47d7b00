/**
 * When a time-based code may be handed out: the rule behind
 * `AuthenticatorDevice.code()`, as a pure function of the clock so that it can
 * be tested as a table.
 *
 * @packageDocumentation
 */

/** What {@link planCode} decides. */
export interface CodePlan {
  /** The time step whose code to give (`floor(seconds / period)`). */
  step: number;
  /** Milliseconds to wait until that step begins (0: it is the current one). */
  waitMs: number;
}

/** The clock reading and the device's state that {@link planCode} needs. */
export interface PlanInput {
  /** Now, in milliseconds since the epoch. */
  nowMs: number;
  /** Seconds per step. */
  period: number;
  /** Seconds the code must stay valid at least; fewer left in the current step means the next step. */
  minRemaining: number;
  /** The last step whose code this device gave out, or `undefined`. */
  lastStep: number | undefined;
  /** The app accepts a code more than once: the step of the last code given may be given again. */
  allowReuse?: boolean;
}

/**
 * The step whose code to give now, and how long to wait for it: the current
 * step when at least `minRemaining` seconds of it are left and its code was
 * not given before; otherwise the first step after both. Apps refuse a code
 * used once (RFC 6238 §5.2), so a second code in the same step waits for the
 * next step rather than repeat the first — unless `allowReuse` says the app
 * accepts a code twice.
 *
 * So a device's first code waits less than `minRemaining` (for a step with
 * that much time left), and each further code at most one period (for the
 * step after the last one given): two codes in a row wait at most
 * `minRemaining` plus one period in all.
 */
export function planCode({ nowMs, period, minRemaining, lastStep, allowReuse = false }: PlanInput): CodePlan {
  const periodMs = period * 1000;
  const current = Math.floor(nowMs / periodMs);
  const remainingMs = (current + 1) * periodMs - nowMs;
  let step = remainingMs < minRemaining * 1000 ? current + 1 : current;
  if (!allowReuse && lastStep !== undefined && step <= lastStep) step = lastStep + 1;
  return { step, waitMs: Math.max(0, step * periodMs - nowMs) };
}
