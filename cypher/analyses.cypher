// Title: Analyses
// Answers: Which analyses are loaded (most recently loaded first), with their sources, options and sizes?
// Kind: canned
// Parameters:
//   $status (string, default complete, one of complete loading deleting): 'complete' for usable analyses; 'loading' or 'deleting' for ones being written or deleted
MATCH (a:Analysis)
WHERE a.status = $status
RETURN a.id AS id, a.name AS name, a.created AS created, a.sources AS sources, a.options AS options,
       a.tasks AS tasks, a.failed_tasks AS failed_tasks, a.killed_tasks AS killed_tasks, a.stages AS stages, a.queries AS queries, coalesce(a.running, 0) AS running, a.apps AS apps, a.nodes AS nodes,
       a.measured AS measured, a.not_measured AS not_measured, a.window AS window, a.parent AS parent,
       a.loaded AS loaded, a.trace_start AS trace_start, a.fingerprint AS fingerprint, a.trace_end AS trace_end, a.status AS status,
       a.writer AS writer, a.live AS live, a.every AS every, a.last_minutes AS last_minutes,
       a.straggler_threshold AS straggler_threshold, a.ended_live AS ended_live,
       a.watch_stopped AS watch_stopped
ORDER BY coalesce(a.loaded, a.created) DESC, a.id;
