-- The activity facts per (chain, address) are kept in chain_scores' activity columns, which held
-- a copy of them: an incremental run read and rewrote the same facts in two million-row tables
-- (sql/score/payment_facts.sql). The first run after this migration rebuilds the payments and
-- every address's facts (pipeline/score/run.ts, scoredPaymentsVersion 5).
DROP TABLE payment_facts;
