// Title: Top-k explanations of a victim at one level
// Answers: For one victim query, which nodes of Level 1 (stages), 2 (resources), 3 (resource on a host) or 4 (blame) have the highest DOR? (paper 000 Sec. 4.2.1, Algorithm 3)
// Kind: canned
// Parameters:
//   $analysis (string): analysis id
//   $victim (string): uid of the victim query
//   $level (integer, default 2, from 1 to 4): level 1 to 4
//   $k (integer, default 10, from 1): how many nodes
MATCH (n:ProtoNode {analysis: $analysis, victim: $victim, level: $level})
RETURN n.uid AS uid, n.name AS name, n.level AS level, n.dor AS dor, n.blame_s AS blame_s,
       n.resource AS resource, n.host AS host, n.ratp AS ratp
ORDER BY n.dor DESC, n.name, n.uid
LIMIT $k;
