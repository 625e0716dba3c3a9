-- Parsers shared by the import checks (sql/import/check_*.sql). Every value arrives as text, so
-- nothing is coerced on the way in; each parser returns the typed value, or NULL when the text does
-- not have the expected form. Surrounding spaces are allowed and dropped. The patterns match the
-- raw text (with \s* at the ends) and trim only what passed: trimming every value first costs more
-- than the match itself. Temporary: they live on the writer's connection for one import.

-- Chain names are words such as base, ethereum, solana, stored lowercased.
CREATE OR REPLACE TEMP MACRO import_chain(v) AS
  CASE WHEN regexp_full_match(v, '\s*[a-zA-Z0-9][a-zA-Z0-9_-]{0,63}\s*') THEN lower(trim(v)) END;

-- Address form by chain: Solana uses base58 keys, every other chain EVM addresses.
CREATE OR REPLACE TEMP MACRO import_family(chain) AS
  CASE WHEN chain = 'solana' THEN 'solana' ELSE 'evm' END;

-- EVM: 0x + 40 hex, lowercased. Solana: base58, 32-44 characters, verbatim (base58 is case-sensitive).
CREATE OR REPLACE TEMP MACRO import_address(family, v) AS
  CASE
    WHEN family = 'evm' AND regexp_full_match(v, '\s*0x[0-9a-fA-F]{40}\s*') THEN lower(trim(v))
    WHEN family = 'solana' AND regexp_full_match(v, '\s*[1-9A-HJ-NP-Za-km-z]{32,44}\s*') THEN trim(v)
  END;

CREATE OR REPLACE TEMP MACRO import_address_form(family) AS
  CASE family WHEN 'solana' THEN 'a Solana address (base58, 32-44 characters)' ELSE 'an EVM address (0x + 40 hex)' END;

-- EVM: 0x + 64 hex, lowercased. Solana: a base58 transaction signature (64 bytes), 64-88 characters.
CREATE OR REPLACE TEMP MACRO import_tx_hash(family, v) AS
  CASE
    WHEN family = 'evm' AND regexp_full_match(v, '\s*0x[0-9a-fA-F]{64}\s*') THEN lower(trim(v))
    WHEN family = 'solana' AND regexp_full_match(v, '\s*[1-9A-HJ-NP-Za-km-z]{64,88}\s*') THEN trim(v)
  END;

CREATE OR REPLACE TEMP MACRO import_tx_hash_form(family) AS
  CASE family WHEN 'solana' THEN 'a Solana signature (base58, 64-88 characters)' ELSE 'an EVM transaction hash (0x + 64 hex)' END;

-- Plain digits only: a cast alone would also take ' 12', '1e3' and '1_000'. The caller casts to
-- its column's type with TRY_CAST, which turns an overflow into NULL.
CREATE OR REPLACE TEMP MACRO import_digits(v) AS
  CASE WHEN regexp_full_match(v, '\s*[0-9]+\s*') THEN trim(v) END;

CREATE OR REPLACE TEMP MACRO import_signed_digits(v) AS
  CASE WHEN regexp_full_match(v, '\s*-?[0-9]+\s*') THEN trim(v) END;

-- ISO-8601 (date, or date and time with an optional offset) or epoch seconds (at most 10 digits,
-- so epoch milliseconds are refused rather than read as a date thousands of years ahead), as UTC.
-- A text with an offset goes through TIMESTAMPTZ, because a cast to TIMESTAMP drops the offset;
-- a text without one is read as UTC whatever the session's time zone.
CREATE OR REPLACE TEMP MACRO import_timestamp(v) AS
  CASE
    WHEN regexp_full_match(v, '\s*[0-9]{1,10}\s*') THEN make_timestamp(trim(v)::BIGINT * 1000000)
    WHEN regexp_matches(v, '[0-9]{2}:[0-9]{2}(:[0-9]{2}(\.[0-9]+)?)?\s*([Zz]|[+-][0-9]{2}(:?[0-9]{2})?)\s*$')
      THEN timezone('UTC', TRY_CAST(upper(trim(v)) AS TIMESTAMPTZ))  -- RFC 3339 allows a lower-case z
    WHEN regexp_full_match(v, '\s*[0-9]{4}-[0-9]{2}-[0-9]{2}([T ][0-9]{2}:[0-9]{2}(:[0-9]{2}(\.[0-9]+)?)?)?\s*')
      THEN TRY_CAST(trim(v) AS TIMESTAMP)
  END;

CREATE OR REPLACE TEMP MACRO import_boolean(v) AS
  CASE lower(trim(v)) WHEN 'true' THEN true WHEN '1' THEN true WHEN 'false' THEN false WHEN '0' THEN false END;

-- A value quoted in a reason, cut to keep reports readable.
CREATE OR REPLACE TEMP MACRO import_shown(v) AS
  '''' || left(v, 80) || CASE WHEN length(v) > 80 THEN '…' ELSE '' END || '''';

-- The problem of one column, as {bad_column, reason}, or NULL when it is fine. `parsed` is the
-- parser's result for `raw`; `expected` completes "… is not <expected>". A parsed value is tested
-- first: that settles most rows at once.
CREATE OR REPLACE TEMP MACRO import_required(col, raw, parsed, expected) AS
  CASE
    WHEN parsed IS NOT NULL THEN NULL
    WHEN raw IS NULL OR trim(raw) = '' THEN {'bad_column': col, 'reason': col || ' is empty'}
    ELSE {'bad_column': col, 'reason': col || ' ' || import_shown(raw) || ' is not ' || expected}
  END;

CREATE OR REPLACE TEMP MACRO import_optional(col, raw, parsed, expected) AS
  CASE
    WHEN parsed IS NOT NULL OR raw IS NULL OR trim(raw) = '' THEN NULL
    ELSE {'bad_column': col, 'reason': col || ' ' || import_shown(raw) || ' is not ' || expected}
  END;
