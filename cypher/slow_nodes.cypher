// Title: Slow nodes
// Answers: Which hosts slow victims down the most, over all victims? Deep explanations grouped by host, total outgoing impact = sum of IF (paper 000 Sec. 4.2.3), with the DOR and blocked seconds beside it.
// Kind: canned
// Parameters:
//   $analysis (string): analysis id
//   $k (integer, default 10): how many hosts
MATCH (d:DeepExplanation {analysis: $analysis})-[e:IMPACTS]->(:ImmediateExplanation)
RETURN d.host AS host, sum(e.impact_factor) AS impact, sum(d.dor) AS dor, sum(d.blame_s) AS blame_s,
       count(DISTINCT d.victim) AS victims
ORDER BY impact DESC, host
LIMIT $k;
