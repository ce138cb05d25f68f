import { string } from 'yup';
import { DEFAULT_DATABASE_NAME, DEFAULT_MONGODB_CHANGE_LOG } from '../../adapters/storage/mongo/mongo-defaults.js';
import { DEFAULT_STORAGE_TIMEOUT_MS } from '../../adapters/storage/storage-unavailable.js';
import type { DiskStorageOption, MongoStorageOption } from '../store/storage.js';
import { integer, labelOf, onOff, optionalText, setting } from './setting.js';

export const STORAGE_KINDS = ['disk', 'memory', 'mongodb'] as const;
export type StorageKind = (typeof STORAGE_KINDS)[number];

/** Where the command keeps plants: the `storage` option (none: memory). */
export const storageSettings = {
  storage: setting(
    { option: 'storage (its kind)', flag: 'storage', env: 'PLANT_STORE_STORAGE', default: '', shownDefault: 'disk', help: `${STORAGE_KINDS.join(', ')}; mongodb when a MongoDB URI is set, else disk` },
    optionalText(new RegExp(`^(${STORAGE_KINDS.join('|')})$`), `must be one of ${STORAGE_KINDS.join(', ')}`),
  ),
  dataDir: setting(
    { option: 'storage.dataDir', flag: 'data-dir', env: 'PLANT_STORE_DATA_DIR', default: './plant-store-data', help: 'directory of the disk storage, created if missing' },
    string().required('must name a directory').matches(/\S/, 'must name a directory'),
  ),
  mongodbUri: setting(
    { option: 'storage.mongodbUri', flag: 'mongodb-uri', env: 'MONGODB_URI', default: '', help: 'store plants in MongoDB at this URI' },
    optionalText(/^mongodb(\+srv)?:\/\/\S+$/, 'must be a mongodb:// or mongodb+srv:// URI'),
  ),
  mongodbDb: setting(
    { option: 'storage.databaseName', flag: 'mongodb-db', env: 'MONGODB_DB', default: '', shownDefault: DEFAULT_DATABASE_NAME, help: 'database name when the URI has none' },
    optionalText(/^[A-Za-z0-9_-]{1,63}$/, 'must be 1-63 letters, digits, _ or -'),
  ),
  mongodbChangeLog: setting(
    { option: 'storage.changeLog', flag: 'mongodb-change-log', env: 'PLANT_STORE_MONGODB_CHANGE_LOG', default: DEFAULT_MONGODB_CHANGE_LOG ? 'on' : 'off', help: 'on MongoDB, keep the change log the change feed follows (off: a create or delete is one write instead of three, and GET /plants/changes is no route)' },
    onOff(),
  ),
  storageTimeout: setting(
    { option: 'storage.timeoutMs', flag: 'storage-timeout-ms', env: 'PLANT_STORE_STORAGE_TIMEOUT_MS', default: String(DEFAULT_STORAGE_TIMEOUT_MS), help: 'longest wait for storage before answering 503' },
    integer(100, 600_000),
  ),
};

type Values = { [K in keyof typeof storageSettings]: ReturnType<(typeof storageSettings)[K]['parse']> };

/** The `storage` option: as the kind says, else mongodb with a URI, else disk; or why they disagree. */
export function storageOptionFrom(v: Values): { readonly value: DiskStorageOption | MongoStorageOption | undefined } | string {
  const kind = labelOf(storageSettings.storage);
  const uri = labelOf(storageSettings.mongodbUri);
  if (v.storage === 'mongodb' && !v.mongodbUri) return `${kind} is mongodb but no ${uri} is set`;
  if (v.storage !== undefined && v.storage !== 'mongodb' && v.mongodbUri) return `${kind} is ${v.storage} but ${uri} is set; unset one of them`;
  if (v.storage === 'memory') return { value: undefined };
  if (v.mongodbUri) return { value: { mongodbUri: v.mongodbUri, databaseName: v.mongodbDb, timeoutMs: v.storageTimeout, changeLog: v.mongodbChangeLog } };
  return { value: { dataDir: v.dataDir, timeoutMs: v.storageTimeout } };
}
