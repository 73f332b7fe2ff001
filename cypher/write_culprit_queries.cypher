// Title: Write Level 6 (culprit queries)
// Answers: Creates culprit query nodes, shared by all victims of the analysis (synthetic sources included).
// Kind: write
// Parameters:
//   $analysis (string): analysis id
//   $rows (list): rows {uid, key, query_key, name, description, app, synthetic, blame_s, running}
UNWIND $rows AS row
CREATE (:ProtoNode:CulpritQuery {uid: row.uid, analysis: $analysis, level: 6, key: row.key, query_key: row.query_key,
        name: row.name, description: row.description, app: row.app, synthetic: row.synthetic, blame_s: row.blame_s,
        running: row.running});
