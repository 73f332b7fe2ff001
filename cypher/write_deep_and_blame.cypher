// Title: Write Levels 3 and 4 (deep and blame explanations)
// Answers: Creates one deep explanation per victim stage, resource request and host, with the stage's RATP there, and under it one blame explanation per culprit stage, between that culprit stage and the deep explanation.
// Kind: write
// Parameters:
//   $analysis (string): analysis id
//   $rows (list): rows {uid, key, child, victim, host_uid, host, resource, request, name, ratp, amount, blame_s,
//     blame: [{uid, key, parent, name, self, share, blame_s}]}
// Blame nodes are created with their deep explanation, so no lookup of a deep explanation by uid
// is needed: FalkorDB keeps DeepExplanation unindexed, and setting its DOR re-indexes nothing.
// A blame node has one parent, its culprit stage: paper 000 Eq. 3's sum has one term, so IF = 1.
UNWIND $rows AS row
MATCH (i:ImmediateExplanation {uid: row.child})
MATCH (h:Host {uid: row.host_uid})
CREATE (d:ProtoNode:DeepExplanation {uid: row.uid, analysis: $analysis, level: 3, key: row.key, victim: row.victim,
        host: row.host, resource: row.resource, request: row.request, name: row.name, ratp: row.ratp,
        amount: row.amount, blame_s: row.blame_s})-[:IMPACTS {analysis: $analysis}]->(i)
CREATE (d)-[:ON_HOST]->(h)
WITH d, row
UNWIND row.blame AS b
MATCH (c:CulpritStage {uid: b.parent})
CREATE (c)-[:IMPACTS {analysis: $analysis, impact_factor: 1.0}]->(:ProtoNode:BlameExplanation {uid: b.uid, analysis: $analysis, level: 4,
        key: b.key, victim: row.victim, host: row.host, resource: row.resource, request: row.request,
        name: b.name, self: b.self, share: b.share, blame_s: b.blame_s})-[:IMPACTS {analysis: $analysis}]->(d);
