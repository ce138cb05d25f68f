import { ErrorCode, isPlantStoreError, requireScope, scopeNeededFor, type PlantOperation } from '../../../core/index.js';
import { realm, type AuthState } from './bearer-auth.js';
import type { Check } from './check.js';

/**
 * After authentication (a route-guard Check): refuses, as the core rules, a principal
 * without the scope the operation needs, and names that scope in the challenge (RFC 6750 §3.1).
 */
export function scopeGuard(operation: PlantOperation): Check {
  const challenge = `${realm}, error="insufficient_scope", scope="${scopeNeededFor(operation)}"`;
  return (ctx) => {
    try {
      requireScope((ctx.state as AuthState).principal, operation);
    } catch (error) {
      if (isPlantStoreError(error) && error.code === ErrorCode.InsufficientScope) ctx.set('WWW-Authenticate', challenge);
      throw error;
    }
  };
}
