// The committed artifacts must be exactly what the committed sources compile to.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { artifactsDir, compileContracts, serializeAbiModule, serializeArtifact } from '../devnet/compile.ts';

describe('devnet artifacts', () => {
  const compiled = compileContracts();

  it('compiles the token, the two ERC-8004 registries, the Permit2 proxy stand-in and the contract wallet with its factory', () => {
    expect(Object.keys(compiled)).toEqual(['Eip3009Token', 'IdentityRegistry', 'OwnedWallet', 'OwnedWalletFactory', 'Permit2ProxyStandIn', 'ReputationRegistry']);
  });

  it.each(Object.values(compiled))('$contractName matches its committed artifacts', (artifact) => {
    const json = readFileSync(join(artifactsDir, `${artifact.contractName}.json`), 'utf8');
    const committed = JSON.parse(json);
    expect(committed.sourceSha256).toBe(artifact.sourceSha256);
    expect(committed.abi).toEqual(artifact.abi);
    expect(committed.bytecode).toBe(artifact.bytecode);
    // Byte for byte, so formatting and the remaining fields cannot drift either.
    expect(json).toBe(serializeArtifact(artifact));
    expect(readFileSync(join(artifactsDir, `${artifact.contractName}.abi.ts`), 'utf8')).toBe(serializeAbiModule(artifact));
  });
});
