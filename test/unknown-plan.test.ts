// An account row whose plan this version does not know (edited by hand, or written by a newer
// version): the server refuses to start, naming the account, rather than failing each of its
// requests, and leaves the database closed for the operator to fix.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../pipeline/config.ts';
import { silentLogger } from '../pipeline/log.ts';
import { openStore } from '../pipeline/store/store.ts';
import { startServer } from '../api/server.ts';
import { createAccount } from '../api/accounts.ts';
import { tempDataDir } from './helpers/temp.ts';

describe('an account on an unknown plan', () => {
  it('stops the server from starting, with the account named, and the database left closed', async () => {
    const dataDir = tempDataDir('unknown-plan');
    const config = loadConfig({ DATA_DIR: dataDir, PORT: '0' });
    let store = await openStore({ dataDir, readConnections: 1 });
    const { id } = await createAccount(store, { plan: 'growth' });
    await store.write((tx) => tx.run(`UPDATE accounts SET plan = 'platinum' WHERE id = $1`, [id]));
    await store.close();

    await expect(startServer(config, silentLogger)).rejects.toThrow(`accounts with a plan this version does not know: ${id} (plan "platinum")`);
    // Closed again: the operator can open it and correct the row.
    store = await openStore({ dataDir, readConnections: 1 });
    await store.write((tx) => tx.run(`UPDATE accounts SET plan = 'growth' WHERE id = $1`, [id]));
    await store.close();
    const server = await startServer(config, silentLogger);
    await server.close();
  });
});
