import { expect } from 'chai';
import { ErrorCode } from '../../core/index.js';
import { statusByErrorCode } from '../../adapters/http/errors/error-statuses.js';

describe('error code → HTTP status table', () => {
  it('each status is the first three digits of its code, as the contract numbers them', () => {
    for (const code of Object.values(ErrorCode)) {
      expect(statusByErrorCode[code], `code ${code}`).to.equal(Math.floor(code / 100));
    }
  });

  it('answers refused connections with the statuses the contract gives them: 408, 417 and 431', () => {
    expect(statusByErrorCode[ErrorCode.RequestTimeout]).to.equal(408);
    expect(statusByErrorCode[ErrorCode.ExpectationFailed]).to.equal(417);
    expect(statusByErrorCode[ErrorCode.HeadersTooLarge]).to.equal(431);
    expect([ErrorCode.RequestTimeout, ErrorCode.ExpectationFailed, ErrorCode.HeadersTooLarge]).to.deep.equal([40801, 41701, 43101]);
  });
});
