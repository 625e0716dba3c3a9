-- address_scores' activity over all of an address's chains counts distinct counterparties, days
-- and months (sql/score/address_scores.sql): migration 020 summed the counterparties of each chain
-- and took the most months of any chain, so an address paying the same counterparty on two chains
-- counted it twice, and the 2.8 view's unique_counterparties, active_days and diversity factor
-- with it. active_days joins them. The next scoring run is full (keptTablesVersion 4) and writes
-- every row exactly; until then each row takes the most days of any of its chains, as the view did.
ALTER TABLE address_scores ADD COLUMN active_days INTEGER;
UPDATE address_scores a SET active_days = c.active_days
  FROM (SELECT address, max(active_days) AS active_days FROM chain_scores GROUP BY address) c
 WHERE c.address = a.address;
