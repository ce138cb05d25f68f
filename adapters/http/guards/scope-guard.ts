import { isPlantStoreError, requireSandboxRole, requireScope, sandboxOf, scopeNeededFor, type PlantOperation } from '../../../core/index.js';
import { realm, type AuthState } from './bearer-auth.js';
import type { Check } from './check.js';

/**
 * After authentication (a route-guard Check): refuses, as the core rules, a principal
 * without the scope the operation needs, and names that scope in the challenge (RFC 6750 §3.1);
 * then one whose token names no sandbox (40302), or whose sandbox the operation is not for
 * (40301): those challenges name no scope, as no scope would help.
 */
export function scopeGuard(operation: PlantOperation): Check {
  const challenge = `${realm}, error="insufficient_scope", scope="${scopeNeededFor(operation)}"`;
  return (ctx) => {
    const { principal } = ctx.state as AuthState;
    try {
      requireScope(principal, operation);
    } catch (error) {
      if (isPlantStoreError(error)) ctx.set('WWW-Authenticate', challenge);
      throw error;
    }
    try {
      sandboxOf(principal);
      requireSandboxRole(principal, operation);
    } catch (error) {
      if (isPlantStoreError(error)) ctx.set('WWW-Authenticate', `${realm}, error="insufficient_scope"`);
      throw error;
    }
  };
}
