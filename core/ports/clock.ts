/** The time now, in ms since the epoch: a port, so a test or a simulation moves time itself. */
export interface Clock {
  now(): number;
}
