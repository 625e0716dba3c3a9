// Typed access to the committed contract artifacts (see devnet/compile.ts).
import { readFileSync } from 'node:fs';
import type { Hex } from 'viem';
import { abi as eip3009TokenAbi } from './artifacts/Eip3009Token.abi.ts';
import { abi as identityRegistryAbi } from './artifacts/IdentityRegistry.abi.ts';
import { abi as reputationRegistryAbi } from './artifacts/ReputationRegistry.abi.ts';
import { abi as permit2ProxyStandInAbi } from './artifacts/Permit2ProxyStandIn.abi.ts';
import { abi as ownedWalletAbi } from './artifacts/OwnedWallet.abi.ts';
import { abi as ownedWalletFactoryAbi } from './artifacts/OwnedWalletFactory.abi.ts';

// ABIs come from the generated .abi.ts modules so viem sees literal types; the JSON artifact
// stays the single source for bytecode.
const abis = {
  Eip3009Token: eip3009TokenAbi,
  IdentityRegistry: identityRegistryAbi,
  ReputationRegistry: reputationRegistryAbi,
  Permit2ProxyStandIn: permit2ProxyStandInAbi,
  OwnedWallet: ownedWalletAbi,
  OwnedWalletFactory: ownedWalletFactoryAbi,
} as const;

export type ContractName = keyof typeof abis;

export function loadArtifact<N extends ContractName>(name: N): { abi: (typeof abis)[N]; bytecode: Hex } {
  const path = new URL(`./artifacts/${name}.json`, import.meta.url);
  const { bytecode } = JSON.parse(readFileSync(path, 'utf8')) as { bytecode: Hex };
  return { abi: abis[name], bytecode };
}
