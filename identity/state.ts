// What the owner keeps of the identity half in memory (operators, tokens, refresh families, who
// wallets belong to), loaded once at start and changed only inside the writer's units after that.
import type { Store } from '../pipeline/store/store.ts';
import { OperatorIndex } from './operators.ts';
import { RefreshIndex } from './refresh.ts';
import { TokenIndex } from './tokens.ts';
import { WalletDirectory } from './wallets/directory.ts';

export interface IdentityState {
  operators: OperatorIndex;
  tokens: TokenIndex;
  refresh: RefreshIndex;
  wallets: WalletDirectory;
}

export async function loadIdentityState(store: Store): Promise<IdentityState> {
  const [operators, tokens] = await Promise.all([OperatorIndex.load(store), TokenIndex.load(store)]);
  return { operators, tokens, refresh: await RefreshIndex.load(store, tokens), wallets: await WalletDirectory.load(store, tokens, operators) };
}
