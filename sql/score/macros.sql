-- Scoring model v1: the formulas every scoring query uses (docs/scoring.md explains each).
-- Temporary macros live on the writer's connection only, so they never enter the database file
-- or its WAL; the first run on a connection creates them (pipeline/score/run.ts), the API's read
-- connections their own (api/reputation/lookup.ts).

-- 0 at 0, 1 at `ceiling_value`, logarithmic in between: the first payments count most.
CREATE OR REPLACE TEMP MACRO saturate(x, ceiling_value) AS least(1.0, ln(1 + greatest(x, 0)) / ln(1 + ceiling_value));

CREATE OR REPLACE TEMP MACRO grade_of(score) AS
  CASE WHEN score IS NULL THEN NULL WHEN score >= 90 THEN 'A' WHEN score >= 75 THEN 'B' WHEN score >= 50 THEN 'C'
       WHEN score >= 25 THEN 'D' ELSE 'F' END;

-- The v1 weights (spec 2.7): identity 0.2, activity 0.2, capability 0.3, reach 0.05, trust 0.25.
-- In DECIMAL: dimensions have one decimal, so the weighted sum is exact and a sum of exactly x.5
-- rounds up (in doubles some come out just below and would round down).
CREATE OR REPLACE TEMP MACRO v1_score(identity, activity, capability, reach, trust) AS
  round(0.20 * identity::DECIMAL(6, 1) + 0.20 * activity::DECIMAL(6, 1) + 0.30 * capability::DECIMAL(6, 1)
      + 0.05 * reach::DECIMAL(6, 1) + 0.25 * trust::DECIMAL(6, 1))::INTEGER;

-- Activity: how much paid work, and for how long.
CREATE OR REPLACE TEMP MACRO activity_dimension(verified_total, candidate_total, active_days, active_months) AS
  round(100 * (0.35 * saturate(verified_total, 200) + 0.15 * saturate(candidate_total, 500)
             + 0.25 * least(1.0, active_days / 60) + 0.25 * least(1.0, active_months / 6)), 1);

-- Reach: how many distinct parties it dealt with, facilitator-settled ones counting most.
CREATE OR REPLACE TEMP MACRO reach_dimension(verified_counterparties, counterparties) AS
  round(100 * (0.7 * saturate(verified_counterparties, 50) + 0.3 * saturate(counterparties, 100)), 1);

-- Identity of a registered agent: registered (30), its registration file (real 25, placeholder 5),
-- ENS (10), website (reachable 15, listed 5), GitHub (10, and up to 10 more for stars).
CREATE OR REPLACE TEMP MACRO identity_dimension(metadata_quality, ens_name, website_url, website_reachable, github_url, github_stars) AS
  round(least(100, 30
    + CASE metadata_quality WHEN 'real' THEN 25 WHEN 'placeholder' THEN 5 ELSE 0 END
    + CASE WHEN ens_name IS NOT NULL THEN 10 ELSE 0 END
    + CASE WHEN website_reachable THEN 15 WHEN website_url IS NOT NULL THEN 5 ELSE 0 END
    + CASE WHEN github_url IS NOT NULL THEN 10 + 10 * saturate(coalesce(github_stars, 0), 100) ELSE 0 END), 1);

-- Capability: what it declares it can do, and what it demonstrably sells (verified payments received).
CREATE OR REPLACE TEMP MACRO declared_capability(service_count, x402_support, has_a2a_agent_card, mentions_mcp, mentions_x402, active) AS
  CASE WHEN service_count >= 1 THEN 15 ELSE 0 END + CASE WHEN service_count >= 3 THEN 5 ELSE 0 END
  + CASE WHEN x402_support THEN 10 ELSE 0 END + CASE WHEN has_a2a_agent_card THEN 15 ELSE 0 END
  + CASE WHEN mentions_mcp THEN 5 ELSE 0 END + CASE WHEN mentions_x402 THEN 5 ELSE 0 END
  + CASE WHEN active THEN 5 ELSE 0 END;
CREATE OR REPLACE TEMP MACRO capability_dimension(declared, verified_as_payee) AS
  round(least(100, declared + 40 * saturate(verified_as_payee, 100)), 1);

-- Trust: weighted feedback shrunk toward a neutral prior of 50 worth two paying clients, so a
-- handful of ratings moves it only part of the way and no feedback at all leaves it at 50.
CREATE OR REPLACE TEMP MACRO trust_dimension(weighted_sum, weight) AS
  round((2 * 50 + weighted_sum) / (2 + weight), 1);

-- Confidence: how much evidence stands behind the score (payments, identity, weighted feedback).
CREATE OR REPLACE TEMP MACRO score_confidence(candidate_total, identity_evidence, feedback_weight) AS
  round(0.6 * saturate(candidate_total, 50) + 0.25 * identity_evidence + 0.15 * saturate(feedback_weight, 5), 2);

-- Operator score: the mean of its agents' scores weighted by exp(-score / 30), so weak agents weigh
-- more (a score 30 points lower weighs e ≈ 2.7 times as much). It lies between the minimum and
-- the plain mean, and adding an agent below the current value never raises it.
CREATE OR REPLACE TEMP MACRO operator_score(scores) AS
  round(list_sum(list_transform(scores, s -> s * exp(-s / 30)))
      / list_sum(list_transform(scores, s -> exp(-s / 30))))::INTEGER;

-- A feedback value on 0-100, or null when its tag is a measurement rather than a rating
-- (response time, block delay, revenues, yield) or the value falls outside 0-100.
CREATE OR REPLACE TEMP MACRO feedback_rating(tag1, value, value_decimals) AS
  CASE WHEN tag1 IN ('responseTime', 'blocktimeFreshness', 'revenues', 'tradingYield') THEN NULL
       WHEN tag1 IN ('reachable', 'ownerVerified') THEN least(100, greatest(0, value::DOUBLE / 10 ^ value_decimals * 100))
       WHEN value::DOUBLE / 10 ^ value_decimals BETWEEN 0 AND 100 THEN value::DOUBLE / 10 ^ value_decimals
  END;

-- Which average of the reputation block a tag feeds.
CREATE OR REPLACE TEMP MACRO feedback_group(tag1) AS
  CASE WHEN tag1 IN ('uptime', 'reachable') THEN 'uptime'
       WHEN tag1 IN ('successRate', 'responseTime', 'blocktimeFreshness') THEN 'activity'
       ELSE 'trust' END;

-- ISO-8601 UTC text of a stored timestamp.
CREATE OR REPLACE TEMP MACRO iso(ts) AS strftime(ts, '%Y-%m-%dT%H:%M:%SZ');
