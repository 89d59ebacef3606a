/** The injected clock: every time-dependent rule asks this, never `Date.now()` directly. */
export interface Clock {
  /** Current instant. */
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock tests can move. Starts at `start` (default: the real now) and only moves when told. */
export class ManualClock implements Clock {
  private ms: number;
  constructor(start: Date = new Date()) {
    this.ms = start.getTime();
  }
  now(): Date {
    return new Date(this.ms);
  }
  set(at: Date): void {
    this.ms = at.getTime();
  }
  advance(ms: number): void {
    this.ms += ms;
  }
}

/** Unix seconds (integer) of a clock's now. */
export const unixSeconds = (clock: Clock): number => Math.floor(clock.now().getTime() / 1000);
