-- payment_days (013) becomes payment_months: one row per (chain, address, month) with the days of
-- the month on which the address paid or was paid as bits (bit d-1 for day d). A third of the
-- rows at the bench size (2.7M instead of 9M), and active days and months are a sum and a count
-- over them instead of two aggregates over every day. The next run rebuilds it (run.ts bumps
-- the layout number it records).
DROP TABLE payment_days;

CREATE TABLE payment_months (
  chain   VARCHAR NOT NULL,
  address VARCHAR NOT NULL,
  month   DATE    NOT NULL,   -- first day of the month
  days    INTEGER NOT NULL    -- bit d-1 set: a payment on day d
);
