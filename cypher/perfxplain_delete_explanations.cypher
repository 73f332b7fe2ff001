// Title: Delete the saved PerfXplain explanations of an analysis
// Answers: Deletes up to $limit explanation and feature nodes that name a run of the analysis, as first or second run (run until it returns 0; part of deleting the analysis, docs/reliability.md).
// Kind: write
// Parameters:
//   $analysis (string): analysis id
//   $limit (integer, default 5000, from 1): nodes per call, to bound each transaction (PROTOXPLORE_BATCH_SIZE)
// Why the label scans first: see analysis_delete.cypher (FalkorDB 4.16 keeps a node deleted by a
// query that did not scan its label listed under that label).
OPTIONAL MATCH (e:PerfExplanation) WITH e LIMIT 1
OPTIONAL MATCH (f:PerfFeature) WITH f LIMIT 1
MATCH (n)
WHERE (n:PerfExplanation OR n:PerfFeature) AND (n.analysis = $analysis OR n.other_analysis = $analysis)
WITH n LIMIT $limit
DETACH DELETE n
RETURN count(*) AS deleted;
