// Title: Top-k weighted paths to a victim
// Answers: Which chains culprit query -> culprit stage -> blame -> host -> resource -> victim stage -> victim explain most of this victim's slowdown? Path weight = product of IF on its edges (paper 000 Algorithm 4, paper 001 Sec. 4.2).
// Kind: canned
// Parameters:
//   $analysis (string): analysis id
//   $victim (string): uid of the victim query
//   $k (integer, default 5): how many paths
MATCH (q:VictimQuery {analysis: $analysis, uid: $victim})
MATCH p = (cq:CulpritQuery)-[:IMPACTS]->(cs:CulpritStage)-[:IMPACTS]->(b:BlameExplanation)
          -[:IMPACTS]->(d:DeepExplanation)-[:IMPACTS]->(i:ImmediateExplanation)-[:IMPACTS]->(s:VictimStage)
          -[:IMPACTS]->(q)
RETURN reduce(w = 1.0, e IN relationships(p) | w * e.impact_factor) AS weight, b.blame_s AS blame_s,
       cq.name AS culprit_query, cq.description AS culprit_description, cs.name AS culprit_stage,
       b.resource AS resource, b.request AS request, b.host AS host, s.name AS victim_stage, q.name AS victim,
       [n IN nodes(p) | n.name] AS names, [n IN nodes(p) | n.uid] AS uids
// The weight is b's share of the victim's blocked time, but each engine rounds the product its own way:
// ordering by the stored blame_s, then uid, lists tied paths in one order on FalkorDB and Neo4j.
ORDER BY blame_s DESC, weight DESC, b.uid
LIMIT $k;
