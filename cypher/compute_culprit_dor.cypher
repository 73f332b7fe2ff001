// Title: Degrees of responsibility of the culprits
// Answers: Sets the DOR of culprit stages and queries: toward each victim on a RESPONSIBLE_FOR edge (the sum over their out-edges of IF x DOR of the child, paper 000 Sec. 4.1.3), and as their own dor property the total toward all other queries (paper 000 Sec. 4.2.2). Runs after compute_level for Levels 0-3.
// Kind: procedure
// Parameters:
//   $analysis (string): analysis id
// Culprit stages and queries are shared by victims, so their DOR is kept per victim; the edges of
// an earlier run are replaced. The IF of an edge into a blame node or a culprit stage is 1 (the
// child has one parent, paper 000 Eq. 3), written with the edge (write_deep_and_blame.cypher,
// write_culprit_stages.cypher), so a culprit stage's DOR toward a victim is the sum of its blame
// nodes' DOR.
MATCH (:VictimQuery {analysis: $analysis})<-[r:RESPONSIBLE_FOR]-()
DELETE r;
MATCH (c:CulpritStage {analysis: $analysis})-[:IMPACTS]->(b:BlameExplanation)
WITH c, b.victim AS victim, sum(b.dor) AS dor, sum(b.blame_s) AS blame
MATCH (q:VictimQuery {uid: victim})
CREATE (c)-[:RESPONSIBLE_FOR {analysis: $analysis, dor: dor, blame_s: blame, self: c.query_key = q.query_key}]->(q);
MATCH (c:CulpritQuery {analysis: $analysis})-[e:IMPACTS]->(:CulpritStage)-[r:RESPONSIBLE_FOR]->(q:VictimQuery)
WITH c, q, sum(e.impact_factor * r.dor) AS dor, sum(r.blame_s) AS blame
CREATE (c)-[:RESPONSIBLE_FOR {analysis: $analysis, dor: dor, blame_s: blame, self: c.query_key = q.query_key}]->(q);
MATCH (c:ProtoNode {analysis: $analysis})
WHERE c.level >= 5
OPTIONAL MATCH (c)-[r:RESPONSIBLE_FOR]->(:VictimQuery)
WITH c, sum(CASE WHEN r.self THEN 0.0 ELSE r.dor END) AS total
SET c.dor = total;
