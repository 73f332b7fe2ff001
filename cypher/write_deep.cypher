// Title: Write Level 3 (deep explanations)
// Answers: Creates one node per victim stage, resource request and host, with the stage's RATP there.
// Kind: write
// Parameters:
//   $analysis (string): analysis id
//   $rows (list): rows {uid, key, child, victim, host_uid, host, resource, request, name, ratp, amount, blame_s}
UNWIND $rows AS row
MATCH (i:ImmediateExplanation {uid: row.child})
MATCH (h:Host {uid: row.host_uid})
CREATE (d:ProtoNode:DeepExplanation {uid: row.uid, analysis: $analysis, level: 3, key: row.key, victim: row.victim,
        host: row.host, resource: row.resource, request: row.request, name: row.name, ratp: row.ratp,
        amount: row.amount, blame_s: row.blame_s})-[:IMPACTS {analysis: $analysis}]->(i)
CREATE (d)-[:ON_HOST]->(h);
