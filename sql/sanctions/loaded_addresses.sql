-- The addresses of the loaded list, one row per (family, address): what a refresh would drop
-- is measured against them (pipeline/sanctions/load.ts).
SELECT DISTINCT family, address FROM sanctioned_addresses;
