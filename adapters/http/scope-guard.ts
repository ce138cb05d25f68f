import type { Middleware } from 'koa';
import { ErrorCode, isPlantStoreError, requireScope, scopeNeededFor, type PlantOperation } from '../../core/index.js';
import { realm, type AuthState } from './bearer-auth.js';

/**
 * After authentication: refuses, as the core rules, a principal without the scope the
 * operation needs, and names that scope in the challenge (RFC 6750 §3.1).
 */
export function scopeGuard(operation: PlantOperation): Middleware<AuthState> {
  const challenge = `${realm}, error="insufficient_scope", scope="${scopeNeededFor(operation)}"`;
  return (ctx, next) => {
    try {
      requireScope(ctx.state.principal, operation);
    } catch (error) {
      if (isPlantStoreError(error) && error.code === ErrorCode.InsufficientScope) ctx.set('WWW-Authenticate', challenge);
      throw error;
    }
    return next();
  };
}
