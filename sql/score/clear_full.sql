-- A full run rebuilds every table runs keep and every serving table: they start empty, before any
-- step reads them (an incremental run replaces only the rows of what it recomputes, and does not
-- run this file). Kept in one place so that incremental runs do not plan a twin of each delete.
-- Not chain_scores: its rows hold the activity facts the run reads (sql/score/chain_scores.sql
-- deletes the old rows once it wrote the new ones).
DELETE FROM registered_agents;
DELETE FROM rated_feedback;
DELETE FROM chain_feedback;
DELETE FROM feedback_weights;
DELETE FROM agent_scores;
DELETE FROM address_scores;
DELETE FROM address_feedback;
