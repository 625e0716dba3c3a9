-- On-demand runs: both sides of the payments this run added or removed (paid_addresses,
-- sql/score/payments.sql), for the next incremental run to rescore (migration 027,
-- sql/score/changed.sql). This run rescores them as well: their activity facts are kept in their
-- chain rows, which must hold the payments as the run leaves them (sql/score/payment_facts.sql).
INSERT INTO pending_addresses SELECT address FROM paid_addresses;
INSERT INTO changed_addresses SELECT address FROM paid_addresses EXCEPT SELECT address FROM changed_addresses;
