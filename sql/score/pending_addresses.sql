-- On-demand runs: both sides of the payments this run added or removed (paid_addresses,
-- sql/score/payments.sql), for the next incremental run to rescore (migration 027,
-- sql/score/changed.sql).
INSERT INTO pending_addresses SELECT address FROM paid_addresses;
