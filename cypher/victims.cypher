// Title: Victim hints
// Answers: Which queries should I look at first: the most blocked, or the most slowed down? (paper 003 Sec. 3)
// Kind: canned
// Parameters:
//   $analysis (string): analysis id
//   $order (string, default blocked, one of blocked slowdown): 'blocked' (most seconds blocked by other queries and causes: its own tasks competing with each other left out, as the slowdown leaves them out) or 'slowdown' (largest slowdown)
//   $k (integer, default 10, from 1): how many victims
MATCH (q:VictimQuery {analysis: $analysis})
WITH q, q.blame_s - coalesce(q.own_s, 0.0) AS by_others
RETURN q.uid AS uid, q.query_key AS query_key, q.name AS name, q.description AS description, q.app_name AS app,
       q.runtime_s AS runtime_s, by_others AS by_others_s,
       q.blame_s AS blocked_s, q.own_s AS own_s, q.slowdown AS slowdown, q.start_time AS start_time, q.end_time AS end_time,
       coalesce(q.running, false) AS running, q.app AS app_key
ORDER BY CASE WHEN $order = 'slowdown' THEN coalesce(q.slowdown, -1.0) ELSE by_others END DESC, q.name
LIMIT $k;
