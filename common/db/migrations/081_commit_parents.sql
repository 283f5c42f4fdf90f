-- A landed commit's parents, first parent first (docs/metrics.md §10): the pull request a commit came in is
-- found through them. Records stored before this name none.
ALTER TABLE landed_commits ADD COLUMN parents VARCHAR[] DEFAULT [];
