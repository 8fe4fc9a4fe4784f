/** Time source, injected so tests can move time instead of waiting for it. */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** Unix seconds, the unit of every timestamp the API shows. */
export function unixSeconds(clock: Clock): number {
  return Math.floor(clock.now() / 1000);
}
