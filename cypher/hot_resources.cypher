// Title: Hot resources
// Answers: Which resources slow victims down the most, over all victims? Immediate explanations grouped by resource, total outgoing impact = sum of IF (paper 000 Sec. 4.2.3), with the DOR and blocked seconds beside it.
// Kind: canned
// Parameters:
//   $analysis (string): analysis id
//   $k (integer, default 10): how many resources
MATCH (i:ImmediateExplanation {analysis: $analysis})-[e:IMPACTS]->(:VictimStage)
RETURN i.resource AS resource, sum(e.impact_factor) AS impact, sum(i.dor) AS dor, sum(i.blame_s) AS blame_s,
       count(DISTINCT i.victim) AS victims
ORDER BY impact DESC, resource
LIMIT $k;
