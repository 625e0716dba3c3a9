// Address family of listed addresses: by form where the form belongs to one family, else by label.
import { describe, expect, it } from 'vitest';
import { familyOfListed, listingKey, normaliseAddress } from '../pipeline/sanctions/address-family.ts';
import { parseAddressLists } from '../pipeline/sanctions/parse-address-lists.ts';
import { addressListFiles } from './helpers/ofac-data.ts';

describe('familyOfListed', () => {
  it.each([
    // EVM, lowercased whatever the case published; the EVM chains' labels all land in evm.
    ['ETH', '0x098B716B8Aaf21512996dC57EB0615e2383E2f96', 'evm', '0x098b716b8aaf21512996dc57eb0615e2383e2f96'],
    ['ETC', '0xd882cfc20f52f2599d84b8e8d58c7fb62cfe344b', 'evm', '0xd882cfc20f52f2599d84b8e8d58c7fb62cfe344b'],
    ['ARB', '0x4f47bc496083c727c5fbe3ce9cdf2b0f6496270c', 'evm', '0x4f47bc496083c727c5fbe3ce9cdf2b0f6496270c'],
    ['BSC', '0x4f47bc496083c727c5fbe3ce9cdf2b0f6496270c', 'evm', '0x4f47bc496083c727c5fbe3ce9cdf2b0f6496270c'],
    ['USDC', '0x983a81ca6FB1e441266D2FbcB7D8E530AC2E05A2', 'evm', '0x983a81ca6fb1e441266d2fbcb7d8e530ac2e05a2'],
    // USDT in its three forms.
    ['USDT', '0x175d44451403Edf28469dF03A9280c1197ADb92c', 'evm', '0x175d44451403edf28469df03a9280c1197adb92c'],
    ['USDT', 'TX5GV4DyfxNB3rPkzZJhmqZ1efVmL4rEqG', 'tron', 'TX5GV4DyfxNB3rPkzZJhmqZ1efVmL4rEqG'],
    ['USDT', '1KUUJPkyDhamZXgpsyXqNGc3x1QPXtdhgz', 'bitcoin', '1KUUJPkyDhamZXgpsyXqNGc3x1QPXtdhgz'],
    ['USDT', '3E6ZCKRrsdPc35chA9Eftp1h3DLW18NFNV', 'bitcoin', '3E6ZCKRrsdPc35chA9Eftp1h3DLW18NFNV'],
    // The XBT-labelled Tron address: the form wins.
    ['XBT', 'TUCsTq7TofTCJRRoHk6RvhMoS2mJLm5Yzq', 'tron', 'TUCsTq7TofTCJRRoHk6RvhMoS2mJLm5Yzq'],
    ['XBT', '12HQDsicffSBaYdJ6BhnE22sfjTESmmzKx', 'bitcoin', '12HQDsicffSBaYdJ6BhnE22sfjTESmmzKx'],
    ['XBT', 'bc1qdt3gml5z5n50y5hm04u2yjdphefkm0fl2zdj68', 'bitcoin', 'bc1qdt3gml5z5n50y5hm04u2yjdphefkm0fl2zdj68'],
    ['XBT', 'BC1QDT3GML5Z5N50Y5HM04U2YJDPHEFKM0FL2ZDJ68', 'bitcoin', 'bc1qdt3gml5z5n50y5hm04u2yjdphefkm0fl2zdj68'],
    // A 62-character bech32 address (P2WSH/P2TR length) of the XBT list, in either case.
    ['XBT', 'BC1Q4RZDTLT0USLYW86CP29SCTL6CT29G9A95CUUP7PN5MD9DDJ7XGMQPP5M73', 'bitcoin', 'bc1q4rzdtlt0uslyw86cp29sctl6ct29g9a95cuup7pn5md9ddj7xgmqpp5m73'],
    ['USDT', 'bc1q4rzdtlt0uslyw86cp29sctl6ct29g9a95cuup7pn5md9ddj7xgmqpp5m73', 'bitcoin', 'bc1q4rzdtlt0uslyw86cp29sctl6ct29g9a95cuup7pn5md9ddj7xgmqpp5m73'],
    ['TRX', 'TFdTr9C3BqQrzKBXqSxJfAZFTh8UwBAfSg', 'tron', 'TFdTr9C3BqQrzKBXqSxJfAZFTh8UwBAfSg'],
    // Chains of their own: the label decides, even for Bitcoin-style legacy addresses.
    ['BCH', '18M8bJWMzWHDBMxoLqjHHAffdRy4SrzkfB', 'bitcoin-cash', '18M8bJWMzWHDBMxoLqjHHAffdRy4SrzkfB'],
    ['BCH', 'qpf2cphc5dkuclkqur7lhj2yuqq9pk3hmukle77vhq', 'bitcoin-cash', 'qpf2cphc5dkuclkqur7lhj2yuqq9pk3hmukle77vhq'],
    ['BCH', 'BITCOINCASH:QPF2CPHC5DKUCLKQUR7LHJ2YUQQ9PK3HMUKLE77VHQ', 'bitcoin-cash', 'qpf2cphc5dkuclkqur7lhj2yuqq9pk3hmukle77vhq'],
    ['BSV', '12sjrrhoFEsedNRhtgwvvRqjFTh8fZTDX9', 'bitcoin-sv', '12sjrrhoFEsedNRhtgwvvRqjFTh8fZTDX9'],
    ['BTG', 'GPwg61XoHqQPNmAucFACuQ5H9sGCDv9TpS', 'bitcoin-gold', 'GPwg61XoHqQPNmAucFACuQ5H9sGCDv9TpS'],
    ['LTC', 'M8yFL6SFC6TreATegTyuSYkDfDRbisdpT3', 'litecoin', 'M8yFL6SFC6TreATegTyuSYkDfDRbisdpT3'],
    ['DASH', 'XnPFsRWTaSgiVauosEwQ6dEitGYXgwznz2', 'dash', 'XnPFsRWTaSgiVauosEwQ6dEitGYXgwznz2'],
    ['ZEC', 't1MMXtBrSp1XG38Lx9cePcNUCJj5vdWfUWL', 'zcash', 't1MMXtBrSp1XG38Lx9cePcNUCJj5vdWfUWL'],
    ['XMR', '5be5543ff73456ab9f2d207887e2af87322c651ea1a873c5b25b7ffae456c320', 'monero', '5be5543ff73456ab9f2d207887e2af87322c651ea1a873c5b25b7ffae456c320'],
    ['XRP', 'rnXyVQzgxZe7TR1EPzTkGj2jxH4LMJYh66', 'xrp', 'rnXyVQzgxZe7TR1EPzTkGj2jxH4LMJYh66'],
    ['XVG', 'DFFJhnQNZf8rf67tYnesPu7MuGUpYtzv7Z', 'verge', 'DFFJhnQNZf8rf67tYnesPu7MuGUpYtzv7Z'],
    // Solana keys stay verbatim (base58 is case-sensitive); a stablecoin in Solana form is solana.
    ['SOL', '42RLPACwZPx3vYYmxSueqsogfynBDqXK298EDsNoyoHi', 'solana', '42RLPACwZPx3vYYmxSueqsogfynBDqXK298EDsNoyoHi'],
    ['USDC', 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', 'solana', 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v'],
    // Solana keys are 32 to 44 characters: a real 43-character one (an x402 facilitator signer, shared/data/x402).
    ['USDC', '8x8CzkTHTYkW18frrTR7HdCV6fsjenvcykJAXWvoPQW', 'solana', '8x8CzkTHTYkW18frrTR7HdCV6fsjenvcykJAXWvoPQW'],
    ['USDT', 'PcTZWki36z5Y82TAATKK48XUdfsgmS5oLkw2Ta7vWyK', 'solana', 'PcTZWki36z5Y82TAATKK48XUdfsgmS5oLkw2Ta7vWyK'],
    // A T-address with a broken checksum is no Tron address by form; the label's usual family remains.
    ['USDT', 'TX5GV4DyfxNB3rPkzZJhmqZ1efVmL4rEqH', 'unknown', 'TX5GV4DyfxNB3rPkzZJhmqZ1efVmL4rEqH'],
    ['TRX', 'TX5GV4DyfxNB3rPkzZJhmqZ1efVmL4rEqH', 'tron', 'TX5GV4DyfxNB3rPkzZJhmqZ1efVmL4rEqH'],
    ['NEW', 'something-else', 'unknown', 'something-else'],
    // A bech32 bc1 address is Bitcoin by its form alone, whatever the label (here a real XBT one under USDT).
    ['USDT', 'bc1qdt3gml5z5n50y5hm04u2yjdphefkm0fl2zdj68', 'bitcoin', 'bc1qdt3gml5z5n50y5hm04u2yjdphefkm0fl2zdj68'],
    // ... even the label of a chain of its own: the form decides before the label.
    ['BCH', 'bc1qdt3gml5z5n50y5hm04u2yjdphefkm0fl2zdj68', 'bitcoin', 'bc1qdt3gml5z5n50y5hm04u2yjdphefkm0fl2zdj68'],
    // A malformed address under a known label takes the label's usual family, verbatim.
    ['ETH', '0x098B716B8Aaf21512996dC57EB0615e2383E2f9', 'evm', '0x098B716B8Aaf21512996dC57EB0615e2383E2f9'],
    ['XBT', '12HQDsicffSBaYdJ6BhnE22sfjTESmmzKy', 'bitcoin', '12HQDsicffSBaYdJ6BhnE22sfjTESmmzKy'],
    ['ETC', '0xd882cfc20f52f2599d84b8e8d58c7fb62cfe344', 'evm', '0xd882cfc20f52f2599d84b8e8d58c7fb62cfe344'],
    ['SOL', '42RLPACwZPx3vYYmxSueqsogfynBDqXK298EDsNo', 'solana', '42RLPACwZPx3vYYmxSueqsogfynBDqXK298EDsNo'],
  ])('%s %s → %s', (label, address, family, normalised) => {
    expect(familyOfListed(label, address)).toEqual({ family, address: normalised });
  });

  it('normalises a queried address the way listed ones are', () => {
    expect(normaliseAddress(' 0x098B716B8Aaf21512996dC57EB0615e2383E2f96 ')).toBe('0x098b716b8aaf21512996dc57eb0615e2383e2f96');
    expect(normaliseAddress('42RLPACwZPx3vYYmxSueqsogfynBDqXK298EDsNoyoHi')).toBe('42RLPACwZPx3vYYmxSueqsogfynBDqXK298EDsNoyoHi');
    // CashAddr (a real one of the BCH list) in either case, with or without its prefix; never mixed case.
    const cashAddr = 'qpf2cphc5dkuclkqur7lhj2yuqq9pk3hmukle77vhq';
    for (const form of [cashAddr, cashAddr.toUpperCase(), `bitcoincash:${cashAddr}`, `BITCOINCASH:${cashAddr.toUpperCase()}`]) {
      expect(normaliseAddress(form), form).toBe(cashAddr);
    }
    expect(normaliseAddress(`bitcoincash:${cashAddr.toUpperCase()}`)).toBe(`bitcoincash:${cashAddr.toUpperCase()}`);
    // Litecoin's bech32 (BIP-173 test vector form) is case-insensitive too.
    expect(normaliseAddress('LTC1QG42TKWUZD0YFPHZHNFH5NAKSVE4GWSWEN8DRVA')).toBe('ltc1qg42tkwuzd0yfphzhnfh5naksve4gwswen8drva');
    // bech32 in mixed case is no bech32 (BIP-173): kept as given, so it matches no listing.
    expect(normaliseAddress('bc1qDT3gml5z5n50y5hm04u2yjdphefkm0fl2zdj68')).toBe('bc1qDT3gml5z5n50y5hm04u2yjdphefkm0fl2zdj68');
    // A Bitcoin legacy address keeps its case.
    expect(normaliseAddress('18M8bJWMzWHDBMxoLqjHHAffdRy4SrzkfB')).toBe('18M8bJWMzWHDBMxoLqjHHAffdRy4SrzkfB');
  });

  it('places every address of the 2024-09-27 lists in a known family', () => {
    const families: Record<string, Set<string>> = {};
    for (const { label, address } of parseAddressLists(addressListFiles())) {
      (families[label] ??= new Set()).add(familyOfListed(label, address).family);
    }
    const asArrays = Object.fromEntries(Object.entries(families).map(([label, set]) => [label, [...set].sort()]));
    expect(asArrays).toEqual({
      ARB: ['evm'],
      BCH: ['bitcoin-cash'],
      BSC: ['evm'],
      BSV: ['bitcoin-sv'],
      BTG: ['bitcoin-gold'],
      DASH: ['dash'],
      ETC: ['evm'],
      ETH: ['evm'],
      LTC: ['litecoin'],
      TRX: ['tron'],
      USDC: ['evm'],
      USDT: ['bitcoin', 'evm', 'tron'],
      XBT: ['bitcoin', 'tron'],
      XMR: ['monero'],
      XRP: ['xrp'],
      XVG: ['verge'],
      ZEC: ['zcash'],
    });
  });
});

describe('listingKey: one key for the spellings of one address', () => {
  const key = (family: string, spelling: string) => listingKey(family, normaliseAddress(spelling));
  // The CashAddr specification's vectors for hash 76a04053bda0a88bda5177b86a15c3b29f559873, with the
  // CashTokens-aware types of the CashTokens CHIP.
  const hash = '76a04053bda0a88bda5177b86a15c3b29f559873';

  it('Bitcoin Cash: legacy and CashAddr, with or without prefix, in either case, token-aware or not', () => {
    const p2pkh = ['1BpEi6DfDAUFd7GtittLSdBeYJvcoaVggu', 'bitcoincash:qpm2qsznhks23z7629mms6s4cwef74vcwvy22gdx6a',
      'QPM2QSZNHKS23Z7629MMS6S4CWEF74VCWVY22GDX6A', 'bitcoincash:zpm2qsznhks23z7629mms6s4cwef74vcwvrqekrq9w'];
    const p2sh = ['3CWFddi6m4ndiGyKqzYvsFYagqDLPVMTzC', 'bitcoincash:ppm2qsznhks23z7629mms6s4cwef74vcwvn0h829pq',
      'bitcoincash:rpm2qsznhks23z7629mms6s4cwef74vcwv59yeyr7n'];
    for (const spelling of p2pkh) expect(key('bitcoin-cash', spelling), spelling).toBe(`bitcoin-cash\u0000p2pkh:${hash}`);
    for (const spelling of p2sh) expect(key('bitcoin-cash', spelling), spelling).toBe(`bitcoin-cash\u0000p2sh:${hash}`);
  });

  it('Litecoin: P2SH under its old version byte (3…) and its own (M…); P2PKH apart', () => {
    // The pair the Litecoin project's P2SH converter shows.
    expect(key('litecoin', '34f8o9yqoUrzzgMLtYz1k3QTUSdtcDT9h9')).toBe(key('litecoin', 'MAsH73PokbiRoBdEzRyMZgero9ELZSciyE'));
    expect(key('litecoin', 'MAsH73PokbiRoBdEzRyMZgero9ELZSciyE')).toMatch(/^litecoin\u0000p2sh:[0-9a-f]{40}$/);
    expect(key('litecoin', 'LNf2JDiuunBz7GMDKFYHN4rq5meXWxiwfb')).toMatch(/^litecoin\u0000p2pkh:[0-9a-f]{40}$/);
  });

  it('keeps other families, and spellings whose checksum fails, as they are', () => {
    // The same Bitcoin-style spelling under Bitcoin is one address of one chain.
    expect(key('bitcoin', '3CWFddi6m4ndiGyKqzYvsFYagqDLPVMTzC')).toBe('bitcoin\u00003CWFddi6m4ndiGyKqzYvsFYagqDLPVMTzC');
    // One character changed: no hash is read from it, so it cannot stand for the listed address.
    expect(key('bitcoin-cash', 'bitcoincash:qpm2qsznhks23z7629mms6s4cwef74vcwvy22gdx6q')).toBe('bitcoin-cash\u0000qpm2qsznhks23z7629mms6s4cwef74vcwvy22gdx6q');
    expect(key('bitcoin-cash', '1BpEi6DfDAUFd7GtittLSdBeYJvcoaVggv')).toBe('bitcoin-cash\u00001BpEi6DfDAUFd7GtittLSdBeYJvcoaVggv');
    expect(key('litecoin', 'MAsH73PokbiRoBdEzRyMZgero9ELZSciyF')).toBe('litecoin\u0000MAsH73PokbiRoBdEzRyMZgero9ELZSciyF');
    // A Bitcoin Cash address under another version byte (Litecoin's P2PKH) is not read as one.
    expect(key('bitcoin-cash', 'LNf2JDiuunBz7GMDKFYHN4rq5meXWxiwfb')).toBe('bitcoin-cash\u0000LNf2JDiuunBz7GMDKFYHN4rq5meXWxiwfb');
    // Nor is a CashAddr read under Litecoin, where it would meet the Litecoin P2PKH of the same hash.
    expect(key('litecoin', 'bitcoincash:qpm2qsznhks23z7629mms6s4cwef74vcwvy22gdx6a')).toBe('litecoin\u0000qpm2qsznhks23z7629mms6s4cwef74vcwvy22gdx6a');
  });

  it('reads no hash from a CashAddr the specification does not allow, though its checksum holds', () => {
    // The hash above under a valid checksum (encoded outside this code), each with one defect: an
    // undefined type (4), the reserved version bit, a size of 192 bits for 160, non-zero padding,
    // one 5-bit group too many. Read as P2PKH they would stand for the listed address.
    const invalid = ['ypm2qsznhks23z7629mms6s4cwef74vcwv279a32dj', 'spm2qsznhks23z7629mms6s4cwef74vcwv4glwxl5g',
      'q9m2qsznhks23z7629mms6s4cwef74vcwvtn0d2s8a', 'qpm2qsznhks23z7629mms6s4cwef74vcwdhfnr59fu', 'qpm2qsznhks23z7629mms6s4cwef74vcwvq5xhgekz9'];
    for (const spelling of invalid) expect(key('bitcoin-cash', spelling), spelling).toBe(`bitcoin-cash\u0000${spelling}`);
  });
});
