import type { Clock } from '../../core/index.js';

/** A clock that moves only when the test moves it. */
export class ManualClock implements Clock {
  constructor(private time = Date.now()) {}

  now(): number {
    return this.time;
  }

  advance(ms: number): void {
    this.time += ms;
  }
}
