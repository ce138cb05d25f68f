import { expect } from 'chai';
import { ErrorCode } from '../../core/index.js';
import { statusByErrorCode } from '../../adapters/http/error-statuses.js';

describe('error code → HTTP status table', () => {
  it('each status is the first three digits of its code, as the contract numbers them', () => {
    for (const code of Object.values(ErrorCode)) {
      expect(statusByErrorCode[code], `code ${code}`).to.equal(Math.floor(code / 100));
    }
  });
});
