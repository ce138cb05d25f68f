import { DEFAULT_FEED_RETENTION_MS } from '../store/feed-retention.js';
import { durationSchema, durationText } from './duration.js';
import { setting } from './setting.js';

/** The change feed, as the command configures it: the `feed` option. */
export interface FeedOptions {
  /** How long the change log keeps a change for clients to resume from. */
  readonly retentionMs: number;
}

export const feedSettings = {
  feedRetention: setting(
    { option: 'feed.retentionMs', flag: 'feed-retention', env: 'PLANT_STORE_FEED_RETENTION', default: durationText(DEFAULT_FEED_RETENTION_MS), help: 'how long the change log keeps a change (a client may resume from a cursor that recent); deletions stay visible for as long' },
    durationSchema(1000, 30 * 24 * 3_600_000, 'from 1 s to 30 days'),
  ),
};

export function feedOptionsFrom(v: { feedRetention: number }): { readonly value: FeedOptions } {
  return { value: { retentionMs: v.feedRetention } };
}
