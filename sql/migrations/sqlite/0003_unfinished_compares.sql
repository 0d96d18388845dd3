-- The partial index of unfinished jobs, its condition written as four
-- comparisons. SQLite evaluates a partial index's condition for every row
-- written, and it evaluated `status NOT IN (...)` by building a temporary
-- table of the four statuses each time: about a tenth of a job's write.
-- UnfinishedJobs repeats this condition word for word, which is how SQLite
-- knows the index serves it.
DROP INDEX jobs_unfinished;
CREATE INDEX jobs_unfinished ON jobs (id)
    WHERE status <> 'COMPLETE' AND status <> 'FAILED' AND status <> 'CANCELLED' AND status <> 'REJECTED';
