// Title: A victim's culprit stages
// Answers: Which concurrent stages slowed this victim down, with their DOR toward it? (Level 5; paper 000 Sec. 4.2.1) The victim's own other tasks (intra-query contention) come after every other culprit.
// Kind: canned
// Parameters:
//   $analysis (string): analysis id
//   $victim (string): uid of the victim query
//   $k (integer, default 10, from 1): how many stages
// From the victim (one indexed node) to its culprits, not from every CulpritStage of the analysis
// to the victim: 4x to 8x faster on FalkorDB at paper scale.
MATCH (:VictimQuery {analysis: $analysis, uid: $victim})<-[r:RESPONSIBLE_FOR]-(c:CulpritStage {analysis: $analysis})
MATCH (q:CulpritQuery)-[:IMPACTS]->(c)
RETURN c.uid AS uid, c.name AS name, c.stage_name AS stage_name, q.description AS description, q.name AS query,
       c.synthetic AS synthetic, coalesce(c.running, false) AS running, r.self AS self, r.dor AS dor, r.blame_s AS blame_s
ORDER BY self, dor DESC, name
LIMIT $k;
