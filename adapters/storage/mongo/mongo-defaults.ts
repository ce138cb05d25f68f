// Free of the driver, so configuration and help can name them without loading it.

/** Used when the URI names no database (`mongodb://host/<database>`). */
export const DEFAULT_DATABASE_NAME = 'plant_store';
export const DEFAULT_COLLECTION_NAME = 'plants';
/** Whether MongoDB storage keeps the change log the change feed follows. */
export const DEFAULT_MONGODB_CHANGE_LOG = true;
