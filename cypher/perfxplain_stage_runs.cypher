// Title: Stage runs for PerfXplain
// Answers: For every victim stage of an analysis, how long was it blocked, and how many of those seconds did other queries cause? (the ProtoGraph's contention features of PerfXplain's stage runs, paper 004). The seconds of a stage are those of the blame explanations under it (Level 4 to Level 1); other queries are real ones: not the stage's own query, nor the synthetic sources (JVM GC, Unknown, Executors).
// Kind: internal
// Parameters:
//   $analysis (string): analysis id
MATCH (s:VictimStage {analysis: $analysis})
OPTIONAL MATCH (c:CulpritStage)-[:IMPACTS]->(b:BlameExplanation)-[:IMPACTS]->(:DeepExplanation)-[:IMPACTS]->(:ImmediateExplanation)-[:IMPACTS]->(s)
WITH s, sum(CASE WHEN coalesce(b.self, false) OR coalesce(c.synthetic, false) THEN 0.0 ELSE coalesce(b.blame_s, 0.0) END) AS other_queries_s
RETURN s.uid AS uid, s.blame_s AS blocked_s, other_queries_s
ORDER BY s.uid;
