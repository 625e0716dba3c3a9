// What the owner keeps of the identity half in memory (tokens, refresh families, who wallets
// belong to), loaded once at start and changed only inside the writer's units after that.
import type { Store } from '../pipeline/store/store.ts';
import { RefreshIndex } from './refresh.ts';
import { TokenIndex } from './tokens.ts';
import { WalletDirectory } from './wallets/directory.ts';

export interface IdentityState {
  tokens: TokenIndex;
  refresh: RefreshIndex;
  wallets: WalletDirectory;
}

export async function loadIdentityState(store: Store): Promise<IdentityState> {
  const tokens = await TokenIndex.load(store);
  return { tokens, refresh: await RefreshIndex.load(store, tokens), wallets: await WalletDirectory.load(store, tokens) };
}
