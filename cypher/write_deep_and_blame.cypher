// Title: Write Levels 3 and 4 (deep and blame explanations)
// Answers: Creates one deep explanation per victim stage, resource request and host, with the stage's RATP, service time at the host's capacity and slowdown there (paper 001 Eq. 3-4), and under it one blame explanation per culprit stage, between that culprit stage and the deep explanation.
// Kind: write
// Parameters:
//   $analysis (string): analysis id
//   $rows (list): rows {uid, key, toward_victim (uid of the immediate explanation), victim (uid of the victim query), host,
//     host_uid, resource, request, ratp, amount, service_s, slowdown, blame_s,
//     blame: [{uid, key, culprit (uid of the culprit stage), self, blame_s}]}
// Uids come from the writer (loader/levels.py makes every uid); the names are made here. Blame nodes
// are created with their deep explanation, so no lookup of a deep explanation by uid is needed:
// FalkorDB keeps DeepExplanation unindexed, and setting its DOR re-indexes nothing.
// A blame node has one in-edge (IN(v) of paper 000 Eq. 3), from its culprit stage: the sum has one term, so IF = 1.
UNWIND $rows AS row
MATCH (i:ImmediateExplanation {uid: row.toward_victim})
MATCH (h:Host {uid: row.host_uid})
CREATE (d:ProtoNode:DeepExplanation {uid: row.uid, analysis: $analysis, level: 3, key: row.key,
        victim: row.victim, host: row.host, resource: row.resource, request: row.request,
        name: row.request + ' on ' + row.host, ratp: row.ratp, amount: row.amount,
        service_s: row.service_s, slowdown: row.slowdown, blame_s: row.blame_s})-[:IMPACTS {analysis: $analysis}]->(i)
CREATE (d)-[:ON_HOST]->(h)
WITH d, row
UNWIND row.blame AS b
MATCH (c:CulpritStage {uid: b.culprit})
CREATE (c)-[:IMPACTS {analysis: $analysis, impact_factor: 1.0}]->(:ProtoNode:BlameExplanation {uid: b.uid,
        analysis: $analysis, level: 4, key: b.key, victim: d.victim, host: row.host, resource: row.resource,
        request: row.request, name: c.name + ' on ' + row.request + '@' + row.host, self: b.self,
        blame_s: b.blame_s})-[:IMPACTS {analysis: $analysis}]->(d);
