// Title: Slow nodes
// Answers: Which hosts slow victims down the most, over all victims? Deep explanations grouped by host, total outgoing impact = sum of IF (paper 000 Sec. 4.2.3), with the DOR and blocked seconds beside it, and the host's memory peaks (bytes, null when not measured).
// Kind: canned
// Parameters:
//   $analysis (string): analysis id
//   $k (integer, default 10): how many hosts
MATCH (:ImmediateExplanation {analysis: $analysis})<-[e:IMPACTS]-(d:DeepExplanation)
WITH d.host AS host, sum(e.impact_factor) AS impact, sum(d.dor) AS dor, sum(d.blame_s) AS blame_s,
     count(DISTINCT d.victim) AS victims
OPTIONAL MATCH (h:Host {analysis: $analysis, name: host})
RETURN host, impact, dor, blame_s, victims, h.peak_heap_bytes AS peak_heap_bytes,
       h.peak_execution_bytes AS peak_execution_bytes
ORDER BY impact DESC, host
LIMIT $k;
