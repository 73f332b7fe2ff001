// Title: Aggressive culprits
// Answers: Which queries hurt other queries the most, over all victims? Culprit queries by total DOR toward every other query (paper 000 Sec. 4.2.2); a query's blame on itself is left out.
// Kind: canned
// Parameters:
//   $analysis (string): analysis id
//   $k (integer, default 10, from 1): how many culprits
MATCH (c:CulpritQuery {analysis: $analysis})-[r:RESPONSIBLE_FOR]->(q:VictimQuery)
WHERE NOT r.self
RETURN c.uid AS uid, c.name AS name, c.description AS description, c.synthetic AS synthetic, coalesce(c.running, false) AS running,
       sum(r.dor) AS dor, sum(r.blame_s) AS blame_s, count(q) AS victims
ORDER BY dor DESC, name
LIMIT $k;
