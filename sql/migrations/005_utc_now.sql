-- utc_now(): the current time as a UTC TIMESTAMP. now() is a TIMESTAMPTZ, and storing it in a
-- TIMESTAMP column converts it to the host's local time zone; every timestamp we store is UTC.
CREATE MACRO utc_now() AS make_timestamp(epoch_us(now()));
