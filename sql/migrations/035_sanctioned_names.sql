-- OFAC SDN names for name screening at identity verification (identity/screening.ts), replaced
-- whole by refresh-sanctions-list when their source changed, like sanctioned_addresses. Same rules
-- as 001: no keys, unique constraints or indexes.

CREATE TABLE sanctioned_names (
  sdn_uid   VARCHAR NOT NULL,   -- SDN entry id (ent_num)
  name      VARCHAR NOT NULL,   -- as published, e.g. "KHOROSHEV, Dmitry Yuryevich"
  name_type VARCHAR NOT NULL,   -- primary | aka | fka | nka
  sdn_type  VARCHAR NOT NULL    -- individual | entity | vessel | aircraft | '' (the source does not say)
);

-- One row per load that changed the names; the newest one's content hash tells a refresh whether
-- the source changed, its time versions the screening's in-memory index.
CREATE TABLE sanctioned_name_loads (
  loaded_at     TIMESTAMP NOT NULL,
  source        VARCHAR   NOT NULL, -- file paths or URLs (sdn.csv + alt.csv, or sdn_advanced.xml)
  source_sha256 VARCHAR   NOT NULL,
  name_count    INTEGER   NOT NULL,
  entry_count   INTEGER   NOT NULL
);
