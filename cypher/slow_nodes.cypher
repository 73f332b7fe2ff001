// Title: Slow nodes
// Answers: Which hosts slow victims down the most, over all victims? Deep explanations grouped by host, ranked by the blocked seconds they explain (blame_s), with the total outgoing impact beside it (impact = sum of IF, paper 000 Sec. 4.2.3's ranking: it counts every explanation alike, however few seconds it holds), the DOR summed over the victims (each victim's shares add up to at most 1, so the sum can reach the number of victims), and the host's memory peaks (bytes, null when not measured).
// Kind: canned
// Parameters:
//   $analysis (string): analysis id
//   $k (integer, default 10): how many hosts
MATCH (:ImmediateExplanation {analysis: $analysis})<-[e:IMPACTS]-(d:DeepExplanation)
WITH d.host AS host, sum(e.impact_factor) AS impact, sum(d.dor) AS dor, sum(d.blame_s) AS blame_s,
     count(DISTINCT d.victim) AS victims
OPTIONAL MATCH (h:Host {analysis: $analysis, name: host})
RETURN host, blame_s, impact, dor, victims, h.peak_heap_bytes AS peak_heap_bytes,
       h.peak_execution_bytes AS peak_execution_bytes
ORDER BY blame_s DESC, host
LIMIT $k;
