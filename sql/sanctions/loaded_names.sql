-- The names of the loaded list, one row per (entry, name): what a refresh would drop is measured
-- against them (pipeline/sanctions/load-names.ts).
SELECT DISTINCT sdn_uid, name FROM sanctioned_names;
