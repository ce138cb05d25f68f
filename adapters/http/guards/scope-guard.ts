import { ErrorCode, isPlantStoreError, requireScope, sandboxOf, scopeNeededFor, type PlantOperation } from '../../../core/index.js';
import { realm, type AuthState } from './bearer-auth.js';
import type { Check } from './check.js';

/**
 * After authentication (a route-guard Check): refuses, as the core rules, a principal
 * without the scope the operation needs, and names that scope in the challenge (RFC 6750 §3.1);
 * then one whose token should name a sandbox and does not (40302).
 */
export function scopeGuard(operation: PlantOperation): Check {
  const challenge = `${realm}, error="insufficient_scope", scope="${scopeNeededFor(operation)}"`;
  return (ctx) => {
    try {
      const { principal } = ctx.state as AuthState;
      requireScope(principal, operation);
      sandboxOf(principal);
    } catch (error) {
      if (isPlantStoreError(error) && error.code === ErrorCode.InsufficientScope) ctx.set('WWW-Authenticate', challenge);
      if (isPlantStoreError(error) && error.code === ErrorCode.NoSandbox) ctx.set('WWW-Authenticate', `${realm}, error="insufficient_scope"`);
      throw error;
    }
  };
}
