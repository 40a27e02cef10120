-- Statistical verdicts (issue 30): a run whose confidence-form threshold
-- ("p(99) < baseline * 1.10 @ 95%") could not tell a difference from noise
-- gets verdict 'inconclusive'. Its outcome keeps the interval in
-- threshold_results (new optional keys "inconclusive", "note" and
-- "estimate"; jsonb, no schema change). An inconclusive run is not a
-- baseline: runs_baseline_idx and the baseline query keep to 'pass'.

-- +goose Up
ALTER TABLE runs DROP CONSTRAINT runs_verdict_check;
ALTER TABLE runs ADD CONSTRAINT runs_verdict_check
    CHECK (verdict IN ('pass', 'fail', 'error', 'inconclusive'));

-- +goose Down
UPDATE runs SET verdict = 'fail' WHERE verdict = 'inconclusive';
ALTER TABLE runs DROP CONSTRAINT runs_verdict_check;
ALTER TABLE runs ADD CONSTRAINT runs_verdict_check
    CHECK (verdict IN ('pass', 'fail', 'error'));
