import type { Clock } from '../../src/platform/clock.js';

/** Real time plus an offset the test can push forward, so expiry is tested without waiting. */
export class TestClock implements Clock {
  private offsetMs = 0;

  now(): number {
    return Date.now() + this.offsetMs;
  }

  advance(seconds: number): void {
    this.offsetMs += seconds * 1000;
  }
}
