import { ErrorCode } from './error-codes.js';
import { PlantStoreError } from './plant-store-error.js';

/** What a token may be used for. */
export const Scope = {
  Read: 'plants:read',
  Write: 'plants:write',
} as const;

export type Scope = (typeof Scope)[keyof typeof Scope];

export const ALL_SCOPES: readonly Scope[] = [Scope.Read, Scope.Write];

export function isScope(value: string): value is Scope {
  return value === Scope.Read || value === Scope.Write;
}

/** Who sent a request, as a verified token says: a loggable name (never the token), its scopes and its sandbox. */
export interface Principal {
  readonly subject: string;
  readonly scopes: readonly Scope[];
  /**
   * The sandbox whose plants the holder sees; undefined: the default one. null: the token
   * should name one and does not (a JWT without the configured sandbox claim): 403 40302.
   */
  readonly sandbox?: string | null;
  /** The most plants the holder's sandbox may hold (self-service sandboxes); none when absent. */
  readonly maxPlants?: number;
}

/**
 * Throws 40301 when the operation is not for the holder's kind of sandbox: retrying webhook
 * deliveries acts on every sandbox (and forgets endpoints marked gone), so it is left to the
 * default sandbox's tokens (operators); ending a sandbox is its self-service token's alone.
 */
export function requireSandboxRole(principal: Principal, operation: PlantOperation): void {
  if (operation === 'retryDeliveries' && principal.sandbox != null) {
    throw new PlantStoreError(ErrorCode.InsufficientScope, "retrying webhook deliveries is for the default sandbox's tokens (operators), not a named sandbox's");
  }
  // Self-service sandboxes are the ones with a quota.
  if (operation === 'endSandbox' && (principal.sandbox == null || principal.maxPlants === undefined)) {
    throw new PlantStoreError(ErrorCode.InsufficientScope, "only a self-service sandbox's token may end its sandbox");
  }
}

/** The holder's sandbox; throws 40302 when the token should name one and does not. */
export function sandboxOf(principal: Principal): string | undefined {
  if (principal.sandbox === null) throw new PlantStoreError(ErrorCode.NoSandbox, 'the token names no sandbox (its sandbox claim is missing or not a sandbox name)');
  return principal.sandbox;
}

/** The plant operations (following their changes too), and reading or retrying the webhook deliveries (operators). */
export type PlantOperation = 'listPlants' | 'getPlant' | 'createPlant' | 'deletePlant' | 'followChanges' | 'readDeliveries' | 'retryDeliveries' | 'endSandbox';

const scopeByOperation: Readonly<Record<PlantOperation, Scope>> = {
  listPlants: Scope.Read,
  getPlant: Scope.Read,
  createPlant: Scope.Write,
  deletePlant: Scope.Write,
  followChanges: Scope.Read,
  readDeliveries: Scope.Read,
  retryDeliveries: Scope.Write,
  endSandbox: Scope.Write,
};

/** The scope an operation needs. */
export function scopeNeededFor(operation: PlantOperation): Scope {
  return scopeByOperation[operation];
}

/** Throws 40301 unless the principal holds the scope the operation needs. */
export function requireScope(principal: Principal, operation: PlantOperation): void {
  const needed = scopeByOperation[operation];
  if (!principal.scopes.includes(needed)) {
    throw new PlantStoreError(ErrorCode.InsufficientScope, `this operation needs the ${needed} scope, which the token does not grant`);
  }
}
