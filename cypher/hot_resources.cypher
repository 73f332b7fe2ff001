// Title: Hot resources
// Answers: Which resources slow victims down the most, over all victims? Immediate explanations grouped by resource, ranked by the blocked seconds they explain (blame_s), as slow nodes are, with the total outgoing impact beside it (impact = sum of IF, paper 000 Sec. 4.2.3's ranking: it counts every explanation alike, however few seconds it holds) and the DOR summed over the victims.
// Kind: canned
// Parameters:
//   $analysis (string): analysis id
//   $k (integer, default 10, from 1): how many resources
// The sums over the resource's immediate explanations are written on the Resource node after IF and
// DOR (cypher/overview_totals.cypher); a resource no victim waited on has none and is not listed.
MATCH (r:Resource {analysis: $analysis})
WHERE r.impact IS NOT NULL
RETURN r.name AS resource, r.blame_s AS blame_s, r.impact AS impact, r.dor AS dor, r.victims AS victims
ORDER BY blame_s DESC, resource
LIMIT $k;
