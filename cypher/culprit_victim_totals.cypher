// Title: A culprit's victims
// Answers: Top-down: which other queries did this culprit query hurt the most, with its whole DOR toward each and the blocked seconds it caused each (the RESPONSIBLE_FOR edges that compute_impact_and_dor sets; paper 000 Sec. 4.2.2)? Its blame on its own query is left out.
// Kind: canned
// Parameters:
//   $analysis (string): analysis id
//   $culprit (string): uid of the culprit query
//   $k (integer, default 25, from 1): how many victims
MATCH (c:CulpritQuery {analysis: $analysis, uid: $culprit})-[r:RESPONSIBLE_FOR]->(q:VictimQuery)
WHERE NOT r.self
RETURN q.uid AS victim_uid, q.name AS victim, q.description AS victim_description, r.dor AS dor, r.blame_s AS blame_s
ORDER BY dor DESC, victim
LIMIT $k;
