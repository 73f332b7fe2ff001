// Title: Delete an analysis' entities
// Answers: Deletes the hosts, resources, applications, straggler stages and causes, and the analysis node itself.
// Kind: write
// Parameters:
//   $analysis (string): analysis id
// Why a scan of StragglerCause and Analysis first: their nodes are found by an index, and FalkorDB
// 4.16 keeps a node deleted by a query that did not scan its label listed under that label (see
// analysis_delete.cypher); the other labels are scanned to find their nodes.
MATCH (h:Host {analysis: $analysis}) DETACH DELETE h;
MATCH (r:Resource {analysis: $analysis}) DETACH DELETE r;
MATCH (p:Application {analysis: $analysis}) DETACH DELETE p;
MATCH (s:StragglerStage {analysis: $analysis}) DETACH DELETE s;
OPTIONAL MATCH (touch:StragglerCause) WITH touch LIMIT 1
MATCH (c:StragglerCause {analysis: $analysis}) DETACH DELETE c;
OPTIONAL MATCH (touch:Analysis) WITH touch LIMIT 1
MATCH (a:Analysis {id: $analysis}) DETACH DELETE a;
