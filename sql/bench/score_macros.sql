-- Synthetic data for `npm run bench -- score` (bench/score-data.ts): the helpers every generator
-- file uses. Everything is derived from hash() of a row number and a salt, so the same sizes give
-- the same data on every run, with no random state. Hex is printed from hash() rather than md5():
-- several times cheaper, and as random-looking.

-- A number in [0, 1) from (seed, salt).
CREATE OR REPLACE TEMP MACRO bench_uniform(seed, salt) AS (hash(seed, salt) >> 11)::DOUBLE / 9007199254740992;

-- The lowercase 20-byte hex address number `id`. Ids 0 .. N-1 are the transacting addresses;
-- sybil feedback clients and relayers use ids far above them (bench_sybil, bench_relayer).
CREATE OR REPLACE TEMP MACRO bench_address(id) AS
  printf('0x%016x%016x%08x', hash(id::BIGINT, 1), hash(id::BIGINT, 2), hash(id::BIGINT, 3) >> 32);
CREATE OR REPLACE TEMP MACRO bench_sybil(id) AS bench_address(1000000000000 + id);
CREATE OR REPLACE TEMP MACRO bench_relayer(id) AS bench_address(2000000000000 + id);

-- A lowercase 32-byte hex value (transaction and block hashes, nonces); `kind` keeps them apart.
CREATE OR REPLACE TEMP MACRO bench_bytes32(kind, seed) AS
  printf('0x%016x%016x%016x%016x', hash(seed, kind, 1), hash(seed, kind, 2), hash(seed, kind, 3), hash(seed, kind, 4));

-- Base blocks are exactly 2 s apart from genesis at 1686789347 (see pipeline/chain/profiles.ts).
CREATE OR REPLACE TEMP MACRO bench_block_time(block) AS make_timestamp((1686789347 + 2 * block) * 1000000);
CREATE OR REPLACE TEMP MACRO bench_block_hash(block) AS bench_bytes32('block', block::BIGINT);
