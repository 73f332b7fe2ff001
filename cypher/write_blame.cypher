// Title: Write Level 4 (blame explanations)
// Answers: Creates one node per victim stage, request, host and culprit stage, between the culprit stage and the deep explanation.
// Kind: write
// Parameters:
//   $analysis (string): analysis id
//   $rows (list): rows {uid, key, child, parent, victim, host, resource, request, name, self, share, blame_s}
UNWIND $rows AS row
MATCH (d:DeepExplanation {uid: row.child})
MATCH (c:CulpritStage {uid: row.parent})
CREATE (c)-[:IMPACTS {analysis: $analysis}]->(:ProtoNode:BlameExplanation {uid: row.uid, analysis: $analysis, level: 4,
        key: row.key, victim: row.victim, host: row.host, resource: row.resource, request: row.request,
        name: row.name, self: row.self, share: row.share, blame_s: row.blame_s})-[:IMPACTS {analysis: $analysis}]->(d);
