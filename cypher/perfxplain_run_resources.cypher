// Title: Blocked seconds per resource for PerfXplain
// Answers: For every query of an analysis, how many seconds was it blocked on each resource? (Level 2 summed over its victim stages; PerfXplain features blocked_<resource>_s)
// Kind: internal
// Parameters:
//   $analysis (string): analysis id
MATCH (n:ImmediateExplanation {analysis: $analysis})
RETURN n.victim AS uid, n.resource AS resource, sum(n.blame_s) AS blame_s
ORDER BY uid, resource;
