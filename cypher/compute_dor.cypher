// Title: Degrees of responsibility
// Answers: Sets DOR on nodes level by level from the victim up: DOR = 1 at Level 0, else the sum over its out-edges of IF x DOR of the child (paper 000 Sec. 4.1.3). Culprit stages and queries are shared by victims, so their DOR toward each victim is kept on a RESPONSIBLE_FOR edge to that victim; their own dor property is the total toward all other queries (paper 000 Sec. 4.2.2).
// Kind: procedure
// A blame node has exactly one out-edge (to its deep explanation), so its sum has one term.
// Parameters:
//   $analysis (string): analysis id
MATCH (q:VictimQuery {analysis: $analysis})
SET q.dor = 1.0;
MATCH (u:VictimStage {analysis: $analysis})-[e:IMPACTS]->(v:ProtoNode)
WITH u, sum(e.impact_factor * v.dor) AS dor
SET u.dor = dor;
MATCH (u:ImmediateExplanation {analysis: $analysis})-[e:IMPACTS]->(v:ProtoNode)
WITH u, sum(e.impact_factor * v.dor) AS dor
SET u.dor = dor;
MATCH (u:DeepExplanation {analysis: $analysis})-[e:IMPACTS]->(v:ProtoNode)
WITH u, sum(e.impact_factor * v.dor) AS dor
SET u.dor = dor;
MATCH (u:BlameExplanation {analysis: $analysis})-[e:IMPACTS]->(v:DeepExplanation)
SET u.dor = e.impact_factor * v.dor;
MATCH (:ProtoNode {analysis: $analysis})-[r:RESPONSIBLE_FOR]->(:VictimQuery)
DELETE r;
MATCH (c:CulpritStage {analysis: $analysis})-[e:IMPACTS]->(b:BlameExplanation)
WITH c, b.victim AS victim, sum(e.impact_factor * b.dor) AS dor, sum(b.blame_s) AS blame
MATCH (q:VictimQuery {uid: victim})
CREATE (c)-[:RESPONSIBLE_FOR {analysis: $analysis, dor: dor, blame_s: blame, self: c.query_key = q.query_key}]->(q);
MATCH (c:CulpritQuery {analysis: $analysis})-[e:IMPACTS]->(:CulpritStage)-[r:RESPONSIBLE_FOR]->(q:VictimQuery)
WITH c, q, sum(e.impact_factor * r.dor) AS dor, sum(r.blame_s) AS blame
CREATE (c)-[:RESPONSIBLE_FOR {analysis: $analysis, dor: dor, blame_s: blame, self: c.query_key = q.query_key}]->(q);
MATCH (c:CulpritStage {analysis: $analysis})
OPTIONAL MATCH (c)-[r:RESPONSIBLE_FOR]->(:VictimQuery)
WITH c, sum(CASE WHEN r.self THEN 0.0 ELSE r.dor END) AS total
SET c.dor = total;
MATCH (c:CulpritQuery {analysis: $analysis})
OPTIONAL MATCH (c)-[r:RESPONSIBLE_FOR]->(:VictimQuery)
WITH c, sum(CASE WHEN r.self THEN 0.0 ELSE r.dor END) AS total
SET c.dor = total;
