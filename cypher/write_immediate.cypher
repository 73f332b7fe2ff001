// Title: Write Level 2 (immediate explanations)
// Answers: Creates one node per victim stage and measured resource (with its slowdown, paper 001 Eq. 4), linked to the stage and the resource.
// Kind: write
// Parameters:
//   $analysis (string): analysis id
//   $rows (list): rows {uid, key, toward_victim, victim, resource_uid, resource, name, blame_s, service_s, slowdown}
UNWIND $rows AS row
MATCH (s:VictimStage {uid: row.toward_victim})
MATCH (r:Resource {uid: row.resource_uid})
CREATE (i:ProtoNode:ImmediateExplanation {uid: row.uid, analysis: $analysis, level: 2, key: row.key,
        victim: row.victim, resource: row.resource, name: row.name, blame_s: row.blame_s,
        service_s: row.service_s, slowdown: row.slowdown})-[:IMPACTS {analysis: $analysis}]->(s)
CREATE (i)-[:OF_RESOURCE]->(r);
