import type { DeliveryOutbox, PlantRepository } from '../../core/index.js';
import type { OperationTimer, StorageCallMetrics } from '../../adapters/metrics/storage-call-metrics.js';
import type { OpenStorage } from './storage.js';

// The operations timed, each a method of its port (the compiler holds the names to the ports).
const REPOSITORY_OPERATIONS = ['page', 'findById', 'add', 'addMany', 'remove', 'ping', 'purge'] as const satisfies readonly (keyof PlantRepository)[];
const OUTBOX_OPERATIONS = ['claim', 'settle', 'state', 'retryFailed', 'goneEndpoints', 'markGone'] as const satisfies readonly (keyof DeliveryOutbox)[];

/** Names of the operations timed, for the documentation and its test. */
export const STORAGE_OPERATIONS: readonly string[] = [...REPOSITORY_OPERATIONS, ...OUTBOX_OPERATIONS];

/**
 * The storage with every call of its repository and outbox timed (and counted when it
 * fails), whichever storage it is: a decorator, so no storage adapter knows of metrics.
 */
export function measuredStorage(storage: OpenStorage, metrics: StorageCallMetrics): OpenStorage {
  return {
    ...storage,
    repository: measuredRepository(storage.repository, metrics),
    outbox: storage.outbox && measured(storage.outbox, OUTBOX_OPERATIONS, metrics),
  };
}

/** A repository timed, and each of its sandboxes' too (a sandbox's calls are the same operations). */
function measuredRepository(repository: PlantRepository, metrics: StorageCallMetrics): PlantRepository {
  const stand = measured(repository, REPOSITORY_OPERATIONS, metrics);
  const { sandbox } = repository;
  if (sandbox !== undefined) {
    const views = new Map<string, PlantRepository>();
    stand.sandbox = (name) => {
      let view = views.get(name);
      if (view === undefined) {
        const inner = sandbox.call(repository, name);
        // The default sandbox is the repository itself.
        view = inner === repository ? stand : measured(inner, REPOSITORY_OPERATIONS, metrics);
        // Bounded like the storages' own caches of views: expired sandboxes do not pile up.
        if (views.size >= 1024) views.delete(views.keys().next().value!);
        views.set(name, view);
      }
      return view;
    };
  }
  return stand;
}

type Method = (...args: unknown[]) => Promise<unknown>;

/**
 * Stands in for `target`: the operations named are timed; every other method is passed on,
 * always called on `target` itself; properties are read through to it. A method the port
 * gains later works unmeasured until it is named here.
 */
function measured<T extends object>(target: T, operations: readonly string[], metrics: StorageCallMetrics): T {
  const stand = Object.create(target) as Record<string, unknown>;
  for (const name of methodNames(target)) {
    const method = (target as Record<string, Method>)[name]!;
    if (operations.includes(name)) {
      const timer: OperationTimer = metrics.operation(name);
      stand[name] = (...args: unknown[]) => timer.time(method, target, args);
    } else stand[name] = (...args: unknown[]) => method.apply(target, args);
  }
  return stand as T;
}

/** The methods of an object, its own and its classes' (getters are not called). */
function methodNames(target: object): Set<string> {
  const names = new Set<string>();
  for (let level: object | null = target; level !== null && level !== Object.prototype; level = Object.getPrototypeOf(level)) {
    for (const [name, descriptor] of Object.entries(Object.getOwnPropertyDescriptors(level))) {
      if (name !== 'constructor' && typeof descriptor.value === 'function') names.add(name);
    }
  }
  return names;
}
