// Title: A victim's hosts (deep explanations)
// Answers: On which hosts and resources was this victim blocked? (Level 3 aggregated by host and resource; paper 001 Appendix E)
// Kind: canned
// Parameters:
//   $analysis (string): analysis id
//   $victim (string): uid of the victim query
MATCH (n:DeepExplanation {analysis: $analysis, victim: $victim})
RETURN n.host AS host, n.resource AS resource, sum(n.dor) AS dor, sum(n.blame_s) AS blame_s
ORDER BY dor DESC, host, resource;
