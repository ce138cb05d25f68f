/** Upper bounds, in seconds, of the histograms of calls that take well under a millisecond to seconds. */
export const CALL_SECONDS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] as const;

/** Upper bounds, in seconds, of the delivery lag: from a change to its webhook, a second to a day of retries. */
export const LAG_SECONDS = [0.1, 0.5, 1, 5, 15, 60, 300, 1800, 7200, 36_000, 86_400] as const;
