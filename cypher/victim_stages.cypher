// Title: A victim's stages (Level 1)
// Answers: Which stages of this victim query (its critical path by default) were blocked, and how responsible is each? (paper 001 Sec. 4.1)
// Kind: canned
// Parameters:
//   $analysis (string): analysis id
//   $victim (string): uid of the victim query
//   $k (integer, default 10, from 1): how many stages
// Reached from the indexed victim query along its in-edges, not by scanning every node of the analysis.
MATCH (:VictimQuery {analysis: $analysis, uid: $victim})<-[:IMPACTS]-(n:VictimStage)
RETURN n.uid AS uid, n.name AS name, n.level AS level, n.dor AS dor, n.blame_s AS blame_s, n.stage_name AS stage_name,
       coalesce(n.running, false) AS running
ORDER BY n.dor DESC, n.name, n.uid
LIMIT $k;
