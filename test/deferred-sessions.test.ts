// A denial's session as a signed capability (identity/deferred-sessions.ts): the id verifies only
// under this service's key, which survives a restart; nothing else opens.
import { describe, expect, it } from 'vitest';
import { statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DeferredSessions } from '../identity/deferred-sessions.ts';
import { tempDataDir } from './helpers/temp.ts';

describe('deferred sessions', () => {
  const now = new Date('2026-06-01T12:00:00.123Z');

  it('an id opens with its account, creation time and poll secret; the key is made once (0600) and kept across restarts', () => {
    const dir = tempDataDir('deferred-key');
    const first = DeferredSessions.load(dir, 'sandbox');
    expect(statSync(path.join(dir, 'session.key')).mode & 0o777).toBe(0o600);
    const minted = first.mint('acc_00mx5i26pksJZj3ZfMa58x', now);
    expect(minted.id).toMatch(/^sess_[A-Za-z0-9_-]+$/);
    expect(minted.pollSecret).toMatch(/^pls_[A-Za-z0-9_-]{22}$/);
    const restarted = DeferredSessions.load(dir, 'sandbox');
    expect(restarted.open(minted.id)).toEqual(minted);
    // Two mints at the same instant are two sessions.
    expect(first.mint('acc_00mx5i26pksJZj3ZfMa58x', now).id).not.toBe(minted.id);
  });

  it('opens nothing it did not mint: another key, a changed byte, a cut or padded id, a row id', () => {
    const ours = DeferredSessions.load(tempDataDir('deferred-ours'), 'sandbox');
    const theirs = DeferredSessions.load(tempDataDir('deferred-theirs'), 'sandbox');
    const { id } = ours.mint('acc_x', now);
    expect(theirs.open(id)).toBeNull();
    const body = id.slice(5);
    for (let i = 0; i < body.length; i += 7) {
      const changed = `sess_${body.slice(0, i)}${body[i] === 'A' ? 'B' : 'A'}${body.slice(i + 1)}`;
      expect(ours.open(changed), `byte ${i}`).toBeNull();
    }
    expect(ours.open(id.slice(0, -1))).toBeNull();
    expect(ours.open(`${id}=`)).toBeNull();
    expect(ours.open(`${id}.`)).toBeNull();
    expect(ours.open('sess_0123456789abcdefghijkl')).toBeNull();
    expect(ours.open(`x${id}`)).toBeNull();
  });

  it('refuses a key file that is not a key', () => {
    const dir = tempDataDir('deferred-bad');
    writeFileSync(path.join(dir, 'session.key'), 'not hex', { mode: 0o600 });
    expect(() => DeferredSessions.load(dir, 'sandbox')).toThrow(/session\.key is not a session key/);
  });
});
