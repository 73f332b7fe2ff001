// Title: One level toward the culprits, from a node
// Answers: On one victim's walk, which nodes one level toward the culprits (the paper's IN(v)) explain this node, with what impact factor, and with what DOR and blocked seconds toward this victim? (walks the ProtoGraph level by level; culprit stages and queries are shared by victims, so their DOR here is the one toward this victim)
// Kind: canned
// Parameters:
//   $analysis (string): analysis id
//   $victim (string): uid of the victim query whose walk this is
//   $node (string): uid of a node at Level 0 to 5 on that victim's walk
//   $k (integer, default 25, from 1): how many nodes
// The node is found through the indexed uid of its level's label; deep and blame nodes are not
// indexed (an index there slows the DOR procedure), so they are searched only when no indexed
// level holds the node (a scan of every deep node costs more than the rest of the query), and
// blame nodes among the victim's only.
OPTIONAL MATCH (l0:VictimQuery {uid: $node})
OPTIONAL MATCH (l1:VictimStage {uid: $node})
OPTIONAL MATCH (l2:ImmediateExplanation {uid: $node})
OPTIONAL MATCH (l5:CulpritStage {uid: $node})
WITH coalesce(l0, l1, l2, l5) AS found
OPTIONAL MATCH (l3:DeepExplanation)
WHERE found IS NULL AND l3.uid = $node
WITH coalesce(found, l3) AS found
OPTIONAL MATCH (l4:BlameExplanation {victim: $victim})
WHERE found IS NULL AND l4.uid = $node
WITH coalesce(found, l4) AS n
MATCH (p:ProtoNode)-[e:IMPACTS]->(n)
WHERE n.analysis = $analysis AND (n.level = 0 AND n.uid = $victim OR n.victim = $victim OR n.level = 5)
OPTIONAL MATCH (p)-[r:RESPONSIBLE_FOR]->(:VictimQuery {uid: $victim})
WITH p, e, r
WHERE p.level < 5 OR r IS NOT NULL
RETURN p.uid AS uid, p.name AS name, p.level AS level, e.impact_factor AS impact_factor,
       coalesce(r.dor, p.dor) AS dor, coalesce(r.blame_s, p.blame_s) AS blame_s, p.resource AS resource,
       p.host AS host, p.description AS description, p.stage_name AS stage_name, p.synthetic AS synthetic,
       coalesce(p.running, false) AS running, r.self AS self
ORDER BY e.impact_factor DESC, blame_s DESC, p.name
LIMIT $k;
