// Title: Impact factors and degrees of responsibility below the culprits, one level
// Answers: For every node v of Level $level, sets IF on each edge u->v from its parents and DOR on those parents: IF_uv = BC_u / BC_v (paper 001 Sec. 4.2), DOR_u = IF_uv x DOR_v (paper 000 Sec. 4.1.3). Run for $level = 0, 1, 2, 3 in that order (loader/writer.py compute_impact_and_dor), then compute_culprit_dor.
// Kind: procedure
// Parameters:
//   $analysis (string): analysis id
//   $level (integer): the child level, 0 to 3
// Why BC_v: the BC of a node of Levels 0-3 is the sum of its parents' BC (blame is conserved level to
// level, tested), so BC_v is paper 000 Eq. 3's sum over the in-edges, without summing them again.
// Why one pass: a node of Levels 1-4 has one out-edge, so its DOR sum has one term, and the child's
// DOR is known once the level below is done.
MATCH (q:VictimQuery {analysis: $analysis})
WHERE $level = 0
SET q.dor = 1.0;
MATCH (v:ProtoNode {analysis: $analysis})<-[e:IMPACTS]-(u:ProtoNode)
WHERE v.level = $level
WITH e, u, CASE WHEN v.blame_s > 0 THEN u.blame_s / v.blame_s ELSE 0.0 END AS impact, v.dor AS dor
SET e.impact_factor = impact, u.dor = impact * dor;
