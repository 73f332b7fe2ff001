// Title: Write Level 5 (culprit stages)
// Answers: Creates culprit stage nodes, each linked from its culprit query.
// Kind: write
// Parameters:
//   $analysis (string): analysis id
//   $rows (list): rows {uid, key, toward_culprit, query_key, stage_key, stage_id, name, stage_name, synthetic, blame_s, running}
// A culprit stage has one in-edge (IN(v) of paper 000 Eq. 3), from its query: the sum has one term, so IF = 1.
UNWIND $rows AS row
MATCH (q:CulpritQuery {uid: row.toward_culprit})
CREATE (q)-[:IMPACTS {analysis: $analysis, impact_factor: 1.0}]->(:ProtoNode:CulpritStage {uid: row.uid, analysis: $analysis, level: 5,
        key: row.key, query_key: row.query_key, stage_key: row.stage_key, stage_id: row.stage_id, name: row.name,
        stage_name: row.stage_name, synthetic: row.synthetic, blame_s: row.blame_s, running: row.running});
