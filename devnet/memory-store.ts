// An in-memory key-value store for ganache's chain database (its `database.db` option).
//
// By default ganache keeps the chain in LevelDB in a temporary folder. Every trie read then waits
// for a round trip through libuv's thread pool, so mining a block spends about 40% of its time
// idle; kept in memory, the same 1,000 x402 payments mine in 6.6 s instead of 10.8 s. Nothing
// about the chain changes, and nothing is left behind on disk.
//
// ganache wraps the store in levelup, which wants the abstract-leveldown interface; we extend the
// copy of abstract-leveldown ganache ships with, resolved from ganache's own folder.
import { createRequire } from 'node:module';

type Callback<T extends unknown[] = []> = (err?: Error | null, ...result: T) => void;

interface IteratorOptions {
  gt?: Buffer;
  gte?: Buffer;
  lt?: Buffer;
  lte?: Buffer;
  reverse: boolean;
  limit: number;
  keys: boolean;
  values: boolean;
  keyAsBuffer: boolean;
  valueAsBuffer: boolean;
}

interface BatchOperation {
  type: 'put' | 'del';
  key: Buffer;
  value?: Buffer;
}

/** Calls `callback(...args)` on the next tick, as LevelDB answers asynchronously. */
type NextTick = (callback: (...args: never[]) => void, ...args: unknown[]) => void;

interface AbstractLevelDownModule {
  AbstractLevelDOWN: new (manifest: Record<string, boolean>) => { _nextTick: NextTick };
  AbstractIterator: new (db: object) => { _nextTick: NextTick };
}

const requireFromGanache = createRequire(createRequire(import.meta.url).resolve('ganache'));
const { AbstractLevelDOWN, AbstractIterator } = requireFromGanache('abstract-leveldown') as AbstractLevelDownModule;

// latin1 maps each byte to one UTF-16 code unit, so string order is byte order.
const mapKey = (key: Buffer) => key.toString('latin1');
const toBuffer = (value: Buffer | string) => (Buffer.isBuffer(value) ? value : Buffer.from(value));

class MemoryIterator extends AbstractIterator {
  readonly #rows: [string, Buffer][];
  #next = 0;

  constructor(db: object, entries: Map<string, Buffer>, private readonly options: IteratorOptions) {
    super(db);
    const { gt, gte, lt, lte } = options;
    const [gtKey, gteKey, ltKey, lteKey] = [gt, gte, lt, lte].map((bound) => (bound === undefined ? undefined : mapKey(bound)));
    // A snapshot, as LevelDB iterators are: writes made while iterating are not seen.
    let rows = [...entries]
      .filter(
        ([key]) =>
          (gtKey === undefined || key > gtKey) &&
          (gteKey === undefined || key >= gteKey) &&
          (ltKey === undefined || key < ltKey) &&
          (lteKey === undefined || key <= lteKey),
      )
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    if (options.reverse) rows.reverse();
    if (options.limit >= 0) rows = rows.slice(0, options.limit);
    this.#rows = rows;
  }

  _next(callback: Callback<[Buffer | string | undefined, Buffer | string | undefined]>): void {
    const row = this.#rows[this.#next++];
    if (!row) return this._nextTick(callback);
    const { keys, values, keyAsBuffer, valueAsBuffer } = this.options;
    const key = Buffer.from(row[0], 'latin1');
    this._nextTick(
      callback,
      null,
      keys ? (keyAsBuffer ? key : key.toString()) : undefined,
      values ? (valueAsBuffer ? row[1] : row[1].toString()) : undefined,
    );
  }
}

class MemoryStore extends AbstractLevelDOWN {
  readonly #entries = new Map<string, Buffer>();

  constructor() {
    super({ bufferKeys: true, permanence: false });
  }

  _serializeKey(key: Buffer | string): Buffer {
    return toBuffer(key);
  }

  _serializeValue(value: Buffer | string): Buffer {
    return toBuffer(value);
  }

  _get(key: Buffer, options: { asBuffer: boolean }, callback: Callback<[Buffer | string]>): void {
    const value = this.#entries.get(mapKey(key));
    if (value === undefined) return this._nextTick(callback, new Error('NotFound'));
    this._nextTick(callback, null, options.asBuffer ? value : value.toString());
  }

  _put(key: Buffer, value: Buffer, _options: unknown, callback: Callback): void {
    this.#entries.set(mapKey(key), value);
    this._nextTick(callback);
  }

  _del(key: Buffer, _options: unknown, callback: Callback): void {
    this.#entries.delete(mapKey(key));
    this._nextTick(callback);
  }

  _batch(operations: BatchOperation[], _options: unknown, callback: Callback): void {
    for (const { type, key, value } of operations) {
      if (type === 'put') this.#entries.set(mapKey(key), value!);
      else this.#entries.delete(mapKey(key));
    }
    this._nextTick(callback);
  }

  _iterator(options: IteratorOptions): MemoryIterator {
    return new MemoryIterator(this, this.#entries, options);
  }
}

/** A fresh, empty store for one ganache instance. */
export function memoryStore(): object {
  return new MemoryStore();
}
