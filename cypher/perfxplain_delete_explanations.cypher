// Title: Delete the saved PerfXplain explanations of an analysis
// Answers: Deletes up to $limit explanation and feature nodes that name a run of the analysis, as first or second run (run until it returns 0; part of deleting the analysis, docs/reliability.md).
// Kind: write
// Parameters:
//   $analysis (string): analysis id
//   $limit (integer, default 5000, from 1): nodes per call, to bound each transaction (PROTOXPLORE_BATCH_SIZE)
// Why the label scans first: see analysis_delete.cypher (FalkorDB 4.16 keeps a node deleted by a
// query that did not scan its label listed under that label).
// Each label on its own: a scan of every node (n:PerfExplanation OR n:PerfFeature) read all of a
// large store's ProtoGraph nodes at every call (0.02 s of a 0.2 s delete of a live window).
OPTIONAL MATCH (e:PerfExplanation) WITH e LIMIT 1
OPTIONAL MATCH (f:PerfFeature) WITH f LIMIT 1
OPTIONAL MATCH (x:PerfExplanation) WHERE x.analysis = $analysis OR x.other_analysis = $analysis
WITH collect(x) AS explanations
OPTIONAL MATCH (y:PerfFeature) WHERE y.analysis = $analysis OR y.other_analysis = $analysis
WITH explanations, collect(y) AS features
UNWIND explanations + features AS n
WITH n LIMIT $limit
DETACH DELETE n
RETURN count(*) AS deleted;
