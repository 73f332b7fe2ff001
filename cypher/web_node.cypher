// Title: One ProtoGraph node
// Answers: What is this node: its level, name, description, DOR and blocked seconds? (the web app's breadcrumb and culprit pages)
// Kind: canned
// Parameters:
//   $analysis (string): analysis id
//   $node (string): uid of a node at any level
MATCH (n:ProtoNode {analysis: $analysis, uid: $node})
RETURN n.uid AS uid, n.name AS name, n.level AS level, labels(n) AS labels, n.description AS description,
       n.victim AS victim, n.query_key AS query_key, n.dor AS dor, n.blame_s AS blame_s, n.resource AS resource,
       n.host AS host, n.synthetic AS synthetic;
