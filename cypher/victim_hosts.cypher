// Title: A victim's hosts (deep explanations)
// Answers: On which hosts and resources was this victim blocked? (Level 3 aggregated by host and resource; paper 001 Appendix E)
// Kind: canned
// Parameters:
//   $analysis (string): analysis id
//   $victim (string): uid of the victim query
// Reached from the victim's few immediate explanations (indexed by victim), not by scanning every
// deep explanation (they have no index): each deep explanation impacts exactly one of them.
MATCH (:ImmediateExplanation {analysis: $analysis, victim: $victim})<-[:IMPACTS]-(n:DeepExplanation)
RETURN n.host AS host, n.resource AS resource, sum(n.dor) AS dor, sum(n.blame_s) AS blame_s
ORDER BY dor DESC, host, resource;
