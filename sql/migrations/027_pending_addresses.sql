-- Addresses whose payments an on-demand run changed without rescoring them (sql/score/payments.sql
-- brings every payment up to date, the run rescores only what it was asked): the next incremental
-- run counts them as changed, as it does the addresses of transfers newer than the previous run's
-- watermarks. A payment an on-demand run removed (an imported row a chain row replaced) is not
-- newer than anything, so without this list its addresses, and the weights of the clients among
-- them, would keep what they had until a full run. A full run empties it.
CREATE TABLE pending_addresses (
  address VARCHAR NOT NULL
);
