-- A rebuild of the payments (pipeline/score/run.ts: a new facilitator list or layout, or a
-- previous cursor a reorg took away): scored_payments and its aggregates start empty, and the
-- same statements that bring them up to date copy the whole view (sql/score/payments.sql). The
-- activity facts are computed again for every address (sql/score/payment_facts.sql), the stored
-- ones in chain_scores left unread.
DELETE FROM scored_payments;
DELETE FROM payment_pairs;
DELETE FROM payment_months;
