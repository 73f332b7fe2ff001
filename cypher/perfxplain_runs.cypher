// Title: Runs for PerfXplain
// Answers: For every query of an analysis, how long did it run, how long was it blocked, and how many of those seconds did other queries cause? (the ProtoGraph's contention features of PerfXplain's log of past runs, paper 004). Other queries are real ones: not the query itself, nor the synthetic sources (JVM GC, Unknown), whose seconds are in blocked_s.
// Kind: internal
// Parameters:
//   $analysis (string): analysis id
MATCH (q:VictimQuery {analysis: $analysis})
OPTIONAL MATCH (c:CulpritQuery {analysis: $analysis})-[r:RESPONSIBLE_FOR]->(q)
WITH q, sum(CASE WHEN coalesce(r.self, false) OR coalesce(c.synthetic, false) THEN 0.0 ELSE coalesce(r.blame_s, 0.0) END) AS other_queries_s
RETURN q.uid AS uid, q.query_key AS query_key, q.name AS name, q.description AS description,
       q.runtime_s AS duration_s, q.blame_s AS blocked_s, q.own_s AS own_s, other_queries_s
ORDER BY q.name;
