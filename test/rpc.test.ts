// The RPC wrapper's reading of provider errors.
import { describe, expect, it } from 'vitest';
import { suggestedRange } from '../pipeline/chain/rpc.ts';

describe('suggestedRange', () => {
  it.each([
    ['Log response size exceeded. You can make eth_getLogs requests with up to a 2K block range and no limit on the response size', 2000n],
    ['query returned more than 10000 results. Try with this block range [0x1a2b, 0x1b2a].', 256n],
    ['block range is too large, maximum allowed is 5000 blocks', 5000n],
    ['eth_getLogs is limited to a 10000 blocks range', 10000n],
    ['query returned more than 10000 results', null],
  ])('%s → %s', (message, expected) => {
    expect(suggestedRange(message)).toBe(expected);
  });
});
