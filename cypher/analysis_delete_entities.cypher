// Title: Delete an analysis' entities
// Answers: Deletes the hosts, resources, applications, straggler stages and causes, and the analysis node itself.
// Kind: write
// Parameters:
//   $analysis (string): analysis id
MATCH (h:Host {analysis: $analysis}) DETACH DELETE h;
MATCH (r:Resource {analysis: $analysis}) DETACH DELETE r;
MATCH (p:Application {analysis: $analysis}) DETACH DELETE p;
MATCH (s:StragglerStage {analysis: $analysis}) DETACH DELETE s;
MATCH (c:StragglerCause {analysis: $analysis}) DETACH DELETE c;
MATCH (a:Analysis {id: $analysis}) DETACH DELETE a;
