// A store of its own for a describe block, in a temporary folder: opened before the block's tests,
// closed after them (then the folder is removed).
import { afterAll, beforeAll } from 'vitest';
import { openStore, type Store } from '../../pipeline/store/store.ts';
import { tempDataDir } from './temp.ts';

/** Call inside `describe`; the returned function gives the open store inside its tests. */
export function blockStore(label: string): () => Store {
  const dataDir = tempDataDir(label);
  let store: Store | undefined;
  beforeAll(async () => {
    store = await openStore({ dataDir });
  });
  afterAll(async () => {
    await store?.close();
  });
  return () => store!;
}
