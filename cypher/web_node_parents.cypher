// Title: Drill down from a node toward the culprits of one victim
// Answers: Which nodes one level further from the victim explain this node, with what impact factor, and with what DOR and blocked seconds toward this victim? (culprit stages and queries are shared by victims: their DOR here is the one toward this victim)
// Kind: canned
// Parameters:
//   $analysis (string): analysis id
//   $victim (string): uid of the victim query whose walk this is
//   $node (string): uid of a node at Level 0 to 5 on that victim's walk
//   $k (integer, default 25): how many nodes
MATCH (p:ProtoNode {analysis: $analysis})-[e:IMPACTS]->(n:ProtoNode {uid: $node})
OPTIONAL MATCH (p)-[r:RESPONSIBLE_FOR]->(:VictimQuery {uid: $victim})
RETURN p.uid AS uid, p.name AS name, p.level AS level, e.impact_factor AS impact_factor,
       coalesce(r.dor, p.dor) AS dor, coalesce(r.blame_s, p.blame_s) AS blame_s, p.resource AS resource,
       p.host AS host, p.description AS description, p.stage_name AS stage_name, p.synthetic AS synthetic,
       r.self AS self
ORDER BY e.impact_factor DESC, blame_s DESC, p.name
LIMIT $k;
