import { expect } from 'chai';
import { ErrorCode, PlantStoreError, requireScope, scopeNeededFor, type PlantOperation, type Principal } from '../../core/index.js';

describe('access rules', () => {
  const reader: Principal = { subject: 'reader', scopes: ['plants:read'] };
  const writer: Principal = { subject: 'writer', scopes: ['plants:write'] };
  const nobody: Principal = { subject: 'nobody', scopes: [] };

  it('listing, getting, following changes and reading webhook deliveries need plants:read; creating, deleting, retrying deliveries and ending a sandbox need plants:write', () => {
    const needs: Record<PlantOperation, string> = { listPlants: 'plants:read', getPlant: 'plants:read', createPlant: 'plants:write', deletePlant: 'plants:write', followChanges: 'plants:read', readDeliveries: 'plants:read', retryDeliveries: 'plants:write', endSandbox: 'plants:write' };
    for (const [operation, scope] of Object.entries(needs) as [PlantOperation, string][]) {
      expect(scopeNeededFor(operation)).to.equal(scope);
      const holder = scope === 'plants:read' ? reader : writer;
      const other = scope === 'plants:read' ? writer : reader;
      expect(() => requireScope(holder, operation)).not.to.throw();
      for (const refused of [other, nobody]) {
        let thrown: unknown;
        try {
          requireScope(refused, operation);
        } catch (error) {
          thrown = error;
        }
        expect(thrown, `${refused.subject} ${operation}`).to.be.instanceOf(PlantStoreError);
        expect((thrown as PlantStoreError).code).to.equal(ErrorCode.InsufficientScope);
        expect((thrown as PlantStoreError).message).to.include(scope);
      }
    }
  });
});
