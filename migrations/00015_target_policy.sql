-- The organisation's target policy (issue #25 item 2, docs/security.md
-- "Target policy"): orgs.target_allow_list is the outer bound of every
-- project's allow-list, set by org admins. A project admin may list only
-- entries it covers; projects.target_allow_granted holds the entries of a
-- project's list beyond it, which an org admin granted that project.
--
-- Existing installs keep working: the organisation's policy starts as "*"
-- (every public address, never a private, loopback or socket one), and
-- every entry a project lists today is grandfathered as granted to that
-- project only, so each project reaches what it reached before and no
-- project gains what another listed. Down drops both columns; the
-- projects' lists stay as they are.

-- +goose Up
ALTER TABLE orgs
    ADD COLUMN target_allow_list text[] NOT NULL DEFAULT '{*}';
ALTER TABLE projects
    ADD COLUMN target_allow_granted text[] NOT NULL DEFAULT '{}';
UPDATE projects SET target_allow_granted = target_allow_list;

-- +goose Down
ALTER TABLE projects DROP COLUMN target_allow_granted;
ALTER TABLE orgs DROP COLUMN target_allow_list;
