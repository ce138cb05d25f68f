import { MongoClient, type Collection } from 'mongodb';
import type { EndpointDocument, LeaseDocument } from './mongo-delivery-outbox.js';
import type { ChangeDocument } from './mongo-change-reader.js';
import type { GrantDocument } from './mongo-sandbox-registry.js';
import type { PlantDocument } from './plant-document.js';
import type { SandboxCountDocument } from './sandbox-counts.js';

// How the MongoDB storage reaches its database: the client, the collections, the write concern.

/**
 * An insert is acknowledged only once it is in the journal of a majority of the replica
 * set (of the one server, on a standalone), so a plant the client was told about survives
 * a SIGKILL of the database process. `w: 1` without `journal` could lose the last ~100 ms
 * of acknowledged writes on MongoDB. FerretDB accepts and ignores write concerns; its
 * SQLite backend commits each write to a WAL file before answering, which outlives a
 * killed process as well.
 */
export const durableWrite = { w: 'majority', journal: true } as const;

/**
 * The collections the repository works on: the plants, the claims' leases, the endpoints that
 * answered 410, for self-service sandboxes the named sandboxes' counts and the grants, and the
 * change log. Collections given to over() may leave out the last three (an outbox simulation
 * needs none): that repository then keeps no quotas, no registry or no change log.
 */
export interface MongoCollections {
  readonly plants: Collection<PlantDocument>;
  readonly leases: Collection<LeaseDocument>;
  readonly endpoints: Collection<EndpointDocument>;
  readonly sandboxCounts?: Collection<SandboxCountDocument>;
  readonly sandboxGrants?: Collection<GrantDocument>;
  readonly changes?: Collection<ChangeDocument>;
}

export function collectionsOf(client: MongoClient, databaseName: string, collectionName: string, timeoutMS: number): MongoCollections {
  // wtimeoutMS: a replica set short of a majority makes the server give up too, not only us.
  const writeConcern = { ...durableWrite, wtimeoutMS: timeoutMS };
  const database = client.db(databaseName);
  // The leases, the gone endpoints and the self-service sandboxes live beside the plants, named after their collection.
  return {
    plants: database.collection<PlantDocument>(collectionName, { writeConcern }),
    leases: database.collection<LeaseDocument>(`${collectionName}_delivery_leases`, { writeConcern }),
    endpoints: database.collection<EndpointDocument>(`${collectionName}_webhook_endpoints`, { writeConcern }),
    sandboxCounts: database.collection<SandboxCountDocument>(`${collectionName}_sandbox_counts`, { writeConcern }),
    sandboxGrants: database.collection<GrantDocument>(`${collectionName}_sandbox_grants`, { writeConcern }),
    changes: database.collection<ChangeDocument>(`${collectionName}_changes`, { writeConcern }),
  };
}

export function createClient(uri: string, timeoutMS: number): MongoClient {
  try {
    return new MongoClient(uri, {
      // Each wait the driver can do on its own is capped by the call timeout too, so work
      // abandoned at the deadline does not linger.
      serverSelectionTimeoutMS: timeoutMS,
      connectTimeoutMS: timeoutMS,
      socketTimeoutMS: timeoutMS,
      waitQueueTimeoutMS: timeoutMS,
      appName: 'plant-store',
    });
  } catch (error) {
    // A configuration mistake, not an outage. The driver's parse messages name the
    // problem without repeating the URI, so no credentials leak through them.
    throw new TypeError(`invalid MongoDB connection string: ${(error as Error).message}`, { cause: error });
  }
}

/** The database named by the URI's path, if any (`mongodb://host:27017/plants?…` → `plants`). */
export function databaseNameIn(uri: string): string | undefined {
  const path = /^mongodb(?:\+srv)?:\/\/[^/?#]*\/([^?#]*)/.exec(uri)?.[1];
  return path ? decodeURIComponent(path) : undefined;
}
