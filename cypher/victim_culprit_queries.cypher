// Title: A victim's culprit queries
// Answers: Which queries slowed this victim down, with their DOR toward it? (Level 6; paper 000 Sec. 4.2.1) The victim's own other tasks (intra-query contention) come after every other culprit, and are listed even past $k (they are no culprit, but can be most of the blocked time).
// Kind: canned
// Parameters:
//   $analysis (string): analysis id
//   $victim (string): uid of the victim query
//   $k (integer, default 10, from 1): how many queries
// From the victim (one indexed node) to its culprits, not from every CulpritQuery of the analysis
// to the victim: 4x to 8x faster on FalkorDB at paper scale.
MATCH (:VictimQuery {analysis: $analysis, uid: $victim})<-[r:RESPONSIBLE_FOR]-(c:CulpritQuery {analysis: $analysis})
WITH c, r, coalesce(r.self, false) AS own
ORDER BY own, r.dor DESC, c.name
WITH collect(c) AS culprits, collect(r) AS edges
UNWIND range(0, size(culprits) - 1) AS i
WITH culprits[i] AS c, edges[i] AS r, i
WHERE i < $k OR coalesce(r.self, false)
RETURN c.uid AS uid, c.name AS name, c.description AS description, c.app AS app, c.synthetic AS synthetic,
       coalesce(c.running, false) AS running, r.self AS self, r.dor AS dor, r.blame_s AS blame_s
ORDER BY i;
