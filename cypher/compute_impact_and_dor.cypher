// Title: Impact factors and degrees of responsibility
// Answers: Sets IF on the IMPACTS edges and DOR on the nodes of an analysis, level by level from the victims up: IF_uv = BC_u / BC_v below the culprits (paper 001 Sec. 4.2; paper 000 Eq. 3, see below), DOR = 1 at Level 0 and DOR_u = sum over its out-edges of IF_uv x DOR_v (paper 000 Sec. 4.1.3). Culprit stages and queries are shared by victims, so their DOR toward each victim is kept on a RESPONSIBLE_FOR edge to that victim; their own dor property is the total toward all other queries (paper 000 Sec. 4.2.2).
// Kind: procedure
// Parameters:
//   $analysis (string): analysis id
// Why BC_v: the BC of a node of Levels 0-3 is the sum of the BC of its neighbours toward the
// culprits (the paper's IN(v); blame is conserved from level to level, tested), so it is Eq. 3's
// sum over the in-edges without summing them again.
// Why one statement per level sets both: a node of Levels 1-4 has one out-edge, so its DOR sum has
// one term, known once the level below is done; binding the edge from its end toward the victim is
// cheapest. A blame node has one neighbour toward the culprits (its culprit stage) and a culprit
// stage one (its query): Eq. 3 gives
// IF = 1, written with those edges (write_deep_and_blame.cypher, write_culprit_stages.cypher), so a
// culprit stage's DOR toward a victim is the sum of its blame nodes' DOR.
MATCH (q:VictimQuery {analysis: $analysis})
SET q.dor = 1.0;
MATCH (v:VictimQuery {analysis: $analysis})<-[e:IMPACTS]-(u:VictimStage)
WITH e, u, CASE WHEN v.blame_s > 0 THEN u.blame_s / v.blame_s ELSE 0.0 END AS impact, v.dor AS dor
SET e.impact_factor = impact, u.dor = impact * dor;
MATCH (v:VictimStage {analysis: $analysis})<-[e:IMPACTS]-(u:ImmediateExplanation)
WITH e, u, CASE WHEN v.blame_s > 0 THEN u.blame_s / v.blame_s ELSE 0.0 END AS impact, v.dor AS dor
SET e.impact_factor = impact, u.dor = impact * dor;
MATCH (v:ImmediateExplanation {analysis: $analysis})<-[e:IMPACTS]-(u:DeepExplanation)
WITH e, u, CASE WHEN v.blame_s > 0 THEN u.blame_s / v.blame_s ELSE 0.0 END AS impact, v.dor AS dor
SET e.impact_factor = impact, u.dor = impact * dor;
MATCH (v:DeepExplanation {analysis: $analysis})<-[e:IMPACTS]-(u:BlameExplanation)
WITH e, u, CASE WHEN v.blame_s > 0 THEN u.blame_s / v.blame_s ELSE 0.0 END AS impact, v.dor AS dor
SET e.impact_factor = impact, u.dor = impact * dor;
MATCH (:VictimQuery {analysis: $analysis})<-[r:RESPONSIBLE_FOR]-()
DELETE r;
MATCH (c:CulpritStage {analysis: $analysis})-[:IMPACTS]->(b:BlameExplanation)
WITH c, b.victim AS victim, sum(b.dor) AS dor, sum(b.blame_s) AS blame
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
