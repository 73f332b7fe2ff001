// Title: Hot resources
// Answers: Which resources slow victims down the most, over all victims? Immediate explanations grouped by resource, total outgoing impact = sum of IF (paper 000 Sec. 4.2.3), with the DOR and blocked seconds beside it.
// Kind: canned
// Parameters:
//   $analysis (string): analysis id
//   $k (integer, default 10, from 1): how many resources
// The sums over the resource's immediate explanations are written on the Resource node after IF and
// DOR (cypher/overview_totals.cypher); a resource no victim waited on has none and is not listed.
MATCH (r:Resource {analysis: $analysis})
WHERE r.impact IS NOT NULL
RETURN r.name AS resource, r.impact AS impact, r.dor AS dor, r.blame_s AS blame_s, r.victims AS victims
ORDER BY impact DESC, resource
LIMIT $k;
