-- Aggregates of scored_payments that scoring reads instead of the payments themselves, kept by
-- each run from the payments it added and removed (sql/score/pairs.sql): a run then reads a
-- row per (payer, payee) and per (address, day) instead of every payment, and an incremental run
-- does not scan the payments at all.

-- One row per (chain, payer, payee) with at least one payment.
CREATE TABLE payment_pairs (
  chain             VARCHAR   NOT NULL,
  payer             VARCHAR   NOT NULL,
  payee             VARCHAR   NOT NULL,
  payments          BIGINT    NOT NULL,
  verified_payments BIGINT    NOT NULL,
  volume            HUGEINT   NOT NULL,   -- base units
  verified_volume   HUGEINT,              -- NULL: none verified
  first_at          TIMESTAMP NOT NULL,
  last_at           TIMESTAMP NOT NULL,
  first_verified_at TIMESTAMP,
  last_verified_at  TIMESTAMP
);

-- One row per (chain, address, day) on which the address paid or was paid.
CREATE TABLE payment_days (
  chain   VARCHAR NOT NULL,
  address VARCHAR NOT NULL,
  day     DATE    NOT NULL
);
