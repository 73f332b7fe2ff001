// Title: Drill down from a node
// Answers: Which nodes one level further from the victim explain this node, and with what impact factor? (walks the ProtoGraph level by level)
// Kind: canned
// Parameters:
//   $analysis (string): analysis id
//   $node (string): uid of a node at Level 0 to 5
//   $k (integer, default 25): how many nodes
MATCH (p:ProtoNode {analysis: $analysis})-[e:IMPACTS]->(n:ProtoNode {uid: $node})
RETURN p.uid AS uid, p.name AS name, p.level AS level, labels(p) AS labels, e.impact_factor AS impact_factor,
       p.dor AS dor, p.blame_s AS blame_s, p.resource AS resource, p.host AS host, p.description AS description
ORDER BY e.impact_factor DESC, p.blame_s DESC, p.name
LIMIT $k;
