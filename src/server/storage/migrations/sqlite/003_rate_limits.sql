-- Rate-limit windows: a SQLite store serves one process, so it keeps them in
-- memory (see sqlite/ratelimits.ts); this number keeps the dialects' migrations in step.
SELECT 1;
