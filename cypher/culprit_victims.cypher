// Title: Whom did a culprit hurt?
// Answers: Top-down: which other queries did this culprit query hurt, through which resources and hosts? (paper 000 Sec. 4.2.2)
// Kind: canned
// Parameters:
//   $analysis (string): analysis id
//   $culprit (string): uid of the culprit query
//   $k (integer, default 25, from 1): how many rows
MATCH (c:CulpritQuery {analysis: $analysis, uid: $culprit})-[:IMPACTS]->(:CulpritStage)-[:IMPACTS]->(b:BlameExplanation)
MATCH (q:VictimQuery {uid: b.victim})
WHERE NOT b.self
RETURN c.name AS culprit, c.description AS culprit_description, c.synthetic AS synthetic, c.dor AS culprit_dor,
       coalesce(c.running, false) AS culprit_running, q.running AS victim_running,
       q.uid AS victim_uid, q.name AS victim, q.description AS victim_description, b.resource AS resource,
       b.host AS host, sum(b.dor) AS dor, sum(b.blame_s) AS blame_s
ORDER BY dor DESC, victim, resource, host
LIMIT $k;
