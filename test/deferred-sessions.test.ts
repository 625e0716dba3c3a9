// A minted session as a capability (identity/deferred-sessions.ts): a denial's id signed, one of
// POST /v1/sessions sealed; either opens only under this service's key, which survives a restart.
import { describe, expect, it } from 'vitest';
import { chmodSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DeferredSessions } from '../identity/deferred-sessions.ts';
import { sha256Hex } from '../pipeline/secrets.ts';
import { tempDataDir } from './helpers/temp.ts';
import { silentLogger } from '../pipeline/log.ts';

/** The id with one character of its body changed, every `step`-th character in turn. */
function* changedCharacters(id: string, step: number): Generator<[number, string]> {
  const body = id.slice(5);
  for (let i = 0; i < body.length; i += step) yield [i, `sess_${body.slice(0, i)}${body[i] === 'A' ? 'B' : 'A'}${body.slice(i + 1)}`];
}

describe('deferred sessions', () => {
  const now = new Date('2026-06-01T12:00:00.123Z');

  it('an id opens with its account, creation time and poll secret; the key is made once (0600) and kept across restarts', () => {
    const dir = tempDataDir('deferred-key');
    const first = DeferredSessions.load(dir, 'sandbox', silentLogger);
    expect(statSync(path.join(dir, 'session.key')).mode & 0o777).toBe(0o600);
    const { pollSecret, ...minted } = first.mint('acc_00mx5i26pksJZj3ZfMa58x', now);
    expect(minted.id).toMatch(/^sess_[A-Za-z0-9_-]+$/);
    // The poll secret is random, not derived: the id carries only its SHA-256.
    expect(pollSecret).toMatch(/^pls_/);
    expect(minted.pollSecretHash).toBe(sha256Hex(pollSecret));
    expect(minted.id).not.toContain(pollSecret.slice(4));
    const restarted = DeferredSessions.load(dir, 'sandbox', silentLogger);
    expect(restarted.open(minted.id)).toEqual(minted);
    // Two mints at the same instant are two sessions.
    expect(first.mint('acc_00mx5i26pksJZj3ZfMa58x', now).id).not.toBe(minted.id);
  });

  it('opens nothing it did not mint: another key, a changed byte, a cut or padded id, a row id', () => {
    const ours = DeferredSessions.load(tempDataDir('deferred-ours'), 'sandbox', silentLogger);
    const theirs = DeferredSessions.load(tempDataDir('deferred-theirs'), 'sandbox', silentLogger);
    const { id } = ours.mint('acc_x', now);
    expect(theirs.open(id)).toBeNull();
    for (const [i, changed] of changedCharacters(id, 7)) expect(ours.open(changed), `character ${i}`).toBeNull();
    expect(ours.open(id.slice(0, -1))).toBeNull();
    expect(ours.open(`${id}=`)).toBeNull();
    expect(ours.open(`${id}.`)).toBeNull();
    expect(ours.open('sess_0123456789abcdefghijkl')).toBeNull();
    expect(ours.open(`x${id}`)).toBeNull();
  });

  it("POST /v1/sessions' ids: the product name (or none) round-trips, sealed: neither it nor the account shows in the id", () => {
    const keys = DeferredSessions.load(tempDataDir('deferred-v3'), 'sandbox', silentLogger);
    for (const productName of [null, '', 'Premium weather report', 'é'.repeat(32), 'nul\u0000 and\nnewline']) {
      const { pollSecret, ...minted } = keys.mint('acc_00mx5i26pksJZj3ZfMa58x', now, { context: null, productName });
      expect(pollSecret).toMatch(/^pls_/);
      expect(keys.open(minted.id), String(productName)).toEqual(minted);
      expect(minted.labels).toEqual({ context: null, productName });
      const decoded = Buffer.from(minted.id.slice(5), 'base64url').toString('latin1');
      expect(decoded).not.toContain('acc_00mx5i26pksJZj3ZfMa58x');
      if (productName) expect(decoded).not.toContain(productName.slice(0, 8));
    }
    // A denial's id keeps its context.
    expect(keys.open(keys.mint('acc_x', now).id)!.labels).toEqual({ context: 'assess', productName: null });
  });

  it('mints only what fits: no context, a product name of at most 64 bytes (UTF-8)', () => {
    expect(DeferredSessions.fits({ context: null, productName: 'é'.repeat(32) })).toBe(true);
    expect(DeferredSessions.fits({ context: null, productName: 'é'.repeat(33) })).toBe(false);
    expect(DeferredSessions.fits({ context: 'order 1234', productName: null })).toBe(false);
    expect(DeferredSessions.fits({ context: '', productName: null })).toBe(false);
    const keys = DeferredSessions.load(tempDataDir('deferred-fits'), 'sandbox', silentLogger);
    expect(() => keys.mint('acc_x', now, { context: 'order 1234', productName: null })).toThrow(RangeError);
  });

  it("opens no POST /v1/sessions' id it did not mint: another key, a changed byte, a cut one", () => {
    const ours = DeferredSessions.load(tempDataDir('deferred-v3-ours'), 'sandbox', silentLogger);
    const theirs = DeferredSessions.load(tempDataDir('deferred-v3-theirs'), 'sandbox', silentLogger);
    const { id } = ours.mint('acc_x', now, { context: null, productName: 'Weather' });
    expect(theirs.open(id)).toBeNull();
    for (const [i, changed] of changedCharacters(id, 5)) expect(ours.open(changed), `character ${i}`).toBeNull();
    expect(ours.open(id.slice(0, -2))).toBeNull();
    // The version byte is authenticated: the same bytes read as a denial's id do not open.
    const asDenial = Buffer.from(id.slice(5), 'base64url');
    asDenial[0] = 2;
    expect(ours.open(`sess_${asDenial.toString('base64url')}`)).toBeNull();
  });

  it('refuses a key file that is not a key (empty, not hex, more than the key), saying what to do; tightens a loose mode', () => {
    const dir = tempDataDir('deferred-bad');
    const file = path.join(dir, 'session.key');
    for (const text of ['', 'not hex', `${'ab'.repeat(32)}junk`]) {
      writeFileSync(file, text, { mode: 0o600 });
      expect(() => DeferredSessions.load(dir, 'sandbox', silentLogger)).toThrow(/session\.key is not a session key \(64 hex digits\): restore it from a backup, or remove it/);
    }
    writeFileSync(file, 'ab'.repeat(32));
    chmodSync(file, 0o644);
    const warnings: string[] = [];
    DeferredSessions.load(dir, 'sandbox', { ...silentLogger, warn: (message: string) => warnings.push(message) } as typeof silentLogger);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(warnings).toEqual(['the session key file was readable by others; its mode is now 0600']);
  });
});
