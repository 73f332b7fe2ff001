// Title: A victim's blame explanations (Level 4)
// Answers: Which culprit stage, on which resource and host, took the most of this victim's blocked time? (paper 001 Sec. 4.1, Eq. 10)
// Kind: canned
// Parameters:
//   $analysis (string): analysis id
//   $victim (string): uid of the victim query
//   $k (integer, default 10, from 1): how many blame explanations
// Reached from the victim's few immediate explanations (indexed by victim) through their deep
// explanations, not by scanning the blame nodes (they have no index).
// The victim stage is returned beside the name: two victim stages blamed on the same culprit
// stage, resource and host have blame nodes of the same name.
MATCH (s:VictimStage)<-[:IMPACTS]-(:ImmediateExplanation {analysis: $analysis, victim: $victim})<-[:IMPACTS]-(:DeepExplanation)<-[:IMPACTS]-(n:BlameExplanation)
RETURN n.uid AS uid, n.name AS name, s.name AS victim_stage, n.level AS level, n.dor AS dor, n.blame_s AS blame_s,
       n.resource AS resource, n.host AS host, n.self AS self
ORDER BY n.dor DESC, n.name, n.uid
LIMIT $k;
