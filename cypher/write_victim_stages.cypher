// Title: Write Level 1 (victim stages)
// Answers: Creates victim stage nodes, each linked to its victim query.
// Kind: write
// Parameters:
//   $analysis (string): analysis id
//   $rows (list): rows {uid, key, toward_victim, victim, stage_key, stage_id, name, stage_name, runtime_s, blame_s, running}
UNWIND $rows AS row
MATCH (q:VictimQuery {uid: row.toward_victim})
CREATE (s:ProtoNode:VictimStage {uid: row.uid, analysis: $analysis, level: 1, key: row.key, victim: row.victim,
        stage_key: row.stage_key, stage_id: row.stage_id, name: row.name, stage_name: row.stage_name,
        runtime_s: row.runtime_s, blame_s: row.blame_s, running: row.running})-[:IMPACTS {analysis: $analysis}]->(q);
