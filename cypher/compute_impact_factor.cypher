// Title: Impact factors
// Answers: Sets IF on every IMPACTS edge u->v of an analysis: IF_uv = VC_u / sum of VC_w over the parents w of v (paper 000 Eq. 3), with the blame contributions in seconds as VC (paper 001 Sec. 4.2).
// Kind: procedure
// Parameters:
//   $analysis (string): analysis id
// A blame node (Level 4) has exactly one parent, its culprit stage (paper 000 Sec. 3.4), so the
// sum has one term and IF = 1 there; the other levels are summed. Splitting the two saves the
// grouping of the most numerous nodes (bench/bench_core.py).
MATCH (:CulpritStage {analysis: $analysis})-[e:IMPACTS]->(:BlameExplanation)
SET e.impact_factor = 1.0;
MATCH (v:ProtoNode {analysis: $analysis})<-[:IMPACTS]-(u:ProtoNode)
WHERE v.level <> 4
WITH v, sum(u.blame_s) AS incoming
SET v.incoming_s = incoming;
MATCH (u:ProtoNode {analysis: $analysis})-[e:IMPACTS]->(v:ProtoNode)
WHERE v.level <> 4
SET e.impact_factor = CASE WHEN v.incoming_s > 0 THEN u.blame_s / v.incoming_s ELSE 0.0 END;
