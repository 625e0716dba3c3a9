-- Operators whose name screening is clear (at verification, or cleared by a review).
SELECT id FROM operators WHERE sanctions_result = 'clear';
