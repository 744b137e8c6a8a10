// Formatting of the header's usage figures.

import * as assert from 'node:assert/strict';
import { formatCost, formatTokens } from '../../../src/webview/headerOptions';

describe('header usage figures', () => {
  it('tokens in k and M', () => {
    assert.equal(formatTokens(950), '950');
    assert.equal(formatTokens(12_345), '12.3k');
    assert.equal(formatTokens(200_000), '200k');
    assert.equal(formatTokens(1_500_000), '1.5M');
  });

  it('cost as currency when it is one, else number and unit', () => {
    assert.equal(formatCost(0.0123, 'USD'), '$0.0123');
    assert.equal(formatCost(12.5, 'EUR'), '€12.50');
    assert.equal(formatCost(3, 'credits'), '3.00 credits');
  });
});
