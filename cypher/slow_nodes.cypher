// Title: Slow nodes
// Answers: Which hosts slow victims down the most, over all victims? Deep explanations grouped by host, ranked by the blocked seconds they explain (blame_s), with the total outgoing impact beside it (impact = sum of IF, paper 000 Sec. 4.2.3's ranking: it counts every explanation alike, however few seconds it holds), the DOR summed over the victims (each victim's shares add up to at most 1, so the sum can reach the number of victims), and the host's memory peaks (bytes, null when not measured).
// Kind: canned
// Parameters:
//   $analysis (string): analysis id
//   $k (integer, default 10, from 1): how many hosts
// The sums over the host's deep explanations are written on the Host node after IF and DOR
// (cypher/overview_totals.cypher); a host no victim waited on has none and is not listed.
MATCH (h:Host {analysis: $analysis})
WHERE h.blame_s IS NOT NULL
RETURN h.name AS host, h.blame_s AS blame_s, h.impact AS impact, h.dor AS dor, h.victims AS victims,
       h.peak_heap_bytes AS peak_heap_bytes, h.peak_execution_bytes AS peak_execution_bytes
ORDER BY blame_s DESC, host
LIMIT $k;
