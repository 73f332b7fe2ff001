// Title: Write Levels 3 and 4 (deep and blame explanations)
// Answers: Creates one deep explanation per victim stage, resource request and host, with the stage's RATP, service time at the host's capacity and slowdown there (paper 001 Eq. 3-4), and under it one blame explanation per culprit stage, between that culprit stage and the deep explanation.
// Kind: write
// Parameters:
//   $analysis (string): analysis id
//   $rows (list): rows [uid, key, toward_victim (uid of the immediate explanation), victim (uid of the victim query),
//     host, host_uid, resource, request, ratp, amount, service_s, slowdown, blame_s,
//     blame: [[uid, key, culprit (uid of the culprit stage), self, blame_s]]], named in that order below
// Rows are lists, not maps: FalkorDB's client sends parameters as Cypher text, which the server parses
// at a cost per map field; lists made the paper-scale write a third faster (docs/benchmarks.md).
// protoxplore/storage/writer.py's DEEP_FIELDS and BLAME_FIELDS give the order (tests/test_store.py checks it).
// Uids come from the writer (protoxplore/loader/model/levels.py makes every uid); the names are made here. Blame nodes
// are created with their deep explanation, so no lookup of a deep explanation by uid is needed:
// FalkorDB keeps DeepExplanation unindexed, and setting its DOR re-indexes nothing.
// A blame node has one in-edge (IN(v) of paper 000 Eq. 3), from its culprit stage: the sum has one term, so IF = 1.
UNWIND $rows AS row
WITH row[0] AS uid, row[1] AS key, row[2] AS toward_victim, row[3] AS victim, row[4] AS host, row[5] AS host_uid,
     row[6] AS resource, row[7] AS request, row[8] AS ratp, row[9] AS amount, row[10] AS service_s,
     row[11] AS slowdown, row[12] AS blame_s, row[13] AS blame
MATCH (i:ImmediateExplanation {uid: toward_victim})
MATCH (h:Host {uid: host_uid})
CREATE (d:ProtoNode:DeepExplanation {uid: uid, analysis: $analysis, level: 3, key: key, victim: victim,
        host: host, resource: resource, request: request, name: request + ' on ' + host, ratp: ratp,
        amount: amount, service_s: service_s, slowdown: slowdown, blame_s: blame_s})-[:IMPACTS {analysis: $analysis}]->(i)
CREATE (d)-[:ON_HOST]->(h)
WITH d, host, resource, request, blame
UNWIND blame AS b
WITH d, host, resource, request, b[0] AS uid, b[1] AS key, b[2] AS culprit, b[3] AS self, b[4] AS blame_s
MATCH (c:CulpritStage {uid: culprit})
CREATE (c)-[:IMPACTS {analysis: $analysis, impact_factor: 1.0}]->(:ProtoNode:BlameExplanation {uid: uid,
        analysis: $analysis, level: 4, key: key, victim: d.victim, host: host, resource: resource,
        request: request, name: c.name + ' on ' + request + '@' + host, self: self,
        blame_s: blame_s})-[:IMPACTS {analysis: $analysis}]->(d);
