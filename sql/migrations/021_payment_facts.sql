-- The activity facts of every (chain, address) with x402 payments, kept between runs like the
-- pair and month aggregates they are computed from (sql/score/payment_facts.sql): a run
-- computes again only those of the addresses whose payments changed, and a full run reads them
-- instead of aggregating every pair and month (about 1.4 s of a 7.9 s full run at 1M addresses).
-- The next run fills it (run.ts bumps the layout number it records).
CREATE TABLE payment_facts (
  chain                         VARCHAR   NOT NULL,
  address                       VARCHAR   NOT NULL,
  candidate_as_payer            INTEGER   NOT NULL,
  candidate_as_payee            INTEGER   NOT NULL,
  verified_as_payer             INTEGER   NOT NULL,
  verified_as_payee             INTEGER   NOT NULL,
  counterparties_count          INTEGER   NOT NULL,
  verified_counterparties_count INTEGER   NOT NULL,
  active_days                   INTEGER   NOT NULL,
  active_months                 INTEGER   NOT NULL,
  volume_usdc                   DOUBLE    NOT NULL,
  verified_volume_usdc          DOUBLE    NOT NULL,
  first_candidate_tx_at         TIMESTAMP,
  last_candidate_tx_at          TIMESTAMP,
  first_verified_tx_at          TIMESTAMP,
  last_verified_tx_at           TIMESTAMP
);
