// Title: Impact factors
// Answers: Sets IF on every IMPACTS edge u->v of an analysis: IF_uv = VC_u / sum of VC_w over the parents w of v (paper 000 Eq. 3), with the blame contributions in seconds as VC (paper 001 Sec. 4.2).
// Kind: procedure
// Parameters:
//   $analysis (string): analysis id
// A blame node (Level 4) has exactly one parent, its culprit stage (paper 000 Sec. 3.4), so the
// sum has one term and IF = 1 there. Elsewhere each child's in-edges are collected once and the
// sum is taken over the collection: no property is set on the (indexed) child nodes, which
// FalkorDB would re-index. The numerous Level 3 children get their own statement so that the
// other levels are found without scanning the blame nodes (bench/bench_core.py).
MATCH (:CulpritStage {analysis: $analysis})-[e:IMPACTS]->(:BlameExplanation)
SET e.impact_factor = 1.0;
MATCH (v:DeepExplanation {analysis: $analysis})<-[e:IMPACTS]-(u:BlameExplanation)
WITH v, collect(e) AS edges, collect(u.blame_s) AS contributions, sum(u.blame_s) AS incoming
UNWIND range(0, size(edges) - 1) AS i
WITH edges[i] AS e, CASE WHEN incoming > 0 THEN contributions[i] / incoming ELSE 0.0 END AS impact
SET e.impact_factor = impact;
MATCH (v:ProtoNode {analysis: $analysis})<-[e:IMPACTS]-(u:ProtoNode)
WHERE v.level <> 4 AND v.level <> 3
WITH v, collect(e) AS edges, collect(u.blame_s) AS contributions, sum(u.blame_s) AS incoming
UNWIND range(0, size(edges) - 1) AS i
WITH edges[i] AS e, CASE WHEN incoming > 0 THEN contributions[i] / incoming ELSE 0.0 END AS impact
SET e.impact_factor = impact;
