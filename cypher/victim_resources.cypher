// Title: A victim's resources (immediate explanations)
// Answers: On which resources was this victim blocked, and how responsible is each? (Level 2 aggregated over the victim stages; paper 001 Appendix E)
// Kind: canned
// Parameters:
//   $analysis (string): analysis id
//   $victim (string): uid of the victim query
MATCH (n:ImmediateExplanation {analysis: $analysis, victim: $victim})
RETURN n.resource AS resource, sum(n.dor) AS dor, sum(n.blame_s) AS blame_s
ORDER BY dor DESC, resource;
