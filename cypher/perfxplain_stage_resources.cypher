// Title: Blocked seconds per resource of each stage for PerfXplain
// Answers: For every victim stage of an analysis, how many seconds was it blocked on each resource? (its Level 2 nodes; PerfXplain features blocked_<resource>_s of stage runs)
// Kind: internal
// Parameters:
//   $analysis (string): analysis id
MATCH (n:ImmediateExplanation {analysis: $analysis})-[:IMPACTS]->(s:VictimStage)
RETURN s.uid AS uid, n.resource AS resource, sum(n.blame_s) AS blame_s
ORDER BY uid, resource;
