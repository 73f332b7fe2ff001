// Title: A victim's resources (immediate explanations)
// Answers: On which resources was this victim blocked, and how responsible is each? (Level 2 aggregated over the victim stages; paper 001 Appendix E), with the seconds its amounts take at the hosts' capacities (service_s, the base of the slowdown; null where no capacity applies)
// Kind: canned
// Parameters:
//   $analysis (string): analysis id
//   $victim (string): uid of the victim query
MATCH (n:ImmediateExplanation {analysis: $analysis, victim: $victim})
RETURN n.resource AS resource, sum(n.dor) AS dor, sum(n.blame_s) AS blame_s, sum(n.service_s) AS service_s
ORDER BY dor DESC, resource;
