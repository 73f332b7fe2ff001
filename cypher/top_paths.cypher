// Title: Top-k weighted paths to a victim
// Answers: Which chains culprit query -> culprit stage -> blame -> host -> resource -> victim stage -> victim explain most of this victim's slowdown? Path weight = product of IF on its edges (paper 000 Algorithm 4, paper 001 Sec. 4.2).
// Kind: canned
// Parameters:
//   $analysis (string): analysis id
//   $victim (string): uid of the victim query
//   $k (integer, default 5, from 1): how many paths
MATCH (q:VictimQuery {analysis: $analysis, uid: $victim})
MATCH (cq:CulpritQuery)-[e1:IMPACTS]->(cs:CulpritStage)-[e2:IMPACTS]->(b:BlameExplanation)
      -[e3:IMPACTS]->(d:DeepExplanation)-[e4:IMPACTS]->(i:ImmediateExplanation)-[e5:IMPACTS]->(s:VictimStage)
      -[e6:IMPACTS]->(q)
// Ranked first, then projected: the k paths' names and texts only, not every path's (7x faster on
// FalkorDB at paper scale than building a path per row). The product runs from the culprit to the victim.
WITH cq, cs, b, d, i, s, q,
     1.0 * e1.impact_factor * e2.impact_factor * e3.impact_factor * e4.impact_factor * e5.impact_factor * e6.impact_factor
       AS weight
// The weight is b's share of the victim's blocked time, but each engine rounds the product its own way
// (and paths of equal blame_s get weights apart in the last digits): ordering by the stored blame_s,
// then uid, lists tied paths in one order on FalkorDB and Neo4j, as victim_walk does.
ORDER BY b.blame_s DESC, b.uid
LIMIT $k
RETURN weight, b.blame_s AS blame_s, b.self AS self,
       cq.name AS culprit_query, cq.description AS culprit_description, cs.name AS culprit_stage,
       b.resource AS resource, b.request AS request, b.host AS host, s.name AS victim_stage, q.name AS victim,
       [cq.name, cs.name, b.name, d.name, i.name, s.name, q.name] AS names,
       [cq.uid, cs.uid, b.uid, d.uid, i.uid, s.uid, q.uid] AS uids;
