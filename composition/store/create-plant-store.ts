import 'reflect-metadata';
import { container as rootContainer } from 'tsyringe';
import type { Log } from '../../core/index.js';
import type { ListenerErrorReporter } from '../../adapters/events/in-process-event-bus.js';
import { assembleStore } from './assemble-store.js';
import { InjectionTokens } from './injection-tokens.js';
import type { PlantStore } from './plant-store.js';
import type { StorageOption } from './storage.js';
import type { WebhookOptions } from './webhook-options.js';

export interface PlantStoreOptions {
  /** Omitted: plants are kept in memory. */
  readonly storage?: StorageOption;
  /** Where the store reports what goes wrong (webhook attempts, failing listeners); by default errors go to standard error. */
  readonly log?: Log;
  /** Where a failing event listener is reported; by default, the log's error. */
  readonly onListenerError?: ListenerErrorReporter;
  /** The change log behind `store.changes()`: how long a change is kept to resume from (default a day). */
  readonly feed?: { readonly retentionMs?: number };
  /** Keep metrics in `store.metrics`, a prom-client Registry (docs/metrics.md); default false. */
  readonly metrics?: boolean;
  /**
   * Deliver changes as signed webhooks, recorded with each change in the storage's outbox.
   * On memory storage, pending deliveries are lost when the process ends.
   */
  readonly webhooks?: WebhookOptions & {
    /** @deprecated Give `log` beside `webhooks`; used when that is absent. */
    readonly log?: Log;
  };
}

/** An embedded store; close it when done. Rejects with ConfigError on options that cannot work. */
export async function createPlantStore(options: PlantStoreOptions = {}): Promise<PlantStore> {
  // A container of its own, so two stores in a process share nothing.
  const container = rootContainer.createChildContainer();
  const log = options.log ?? options.webhooks?.log;
  if (log !== undefined) container.register<Log>(InjectionTokens.Log, { useValue: log });
  return assembleStore(container, options);
}
