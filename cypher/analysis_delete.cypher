// Title: Delete part of an analysis
// Answers: Deletes up to $limit nodes of one analysis (run until it returns 0), then its entities.
// Kind: write
// Parameters:
//   $analysis (string): analysis id
//   $limit (integer, default 5000, from 1): nodes per call, to bound each transaction (PROTOXPLORE_BATCH_SIZE)
MATCH (n:ProtoNode {analysis: $analysis})
WITH n LIMIT $limit
DETACH DELETE n
RETURN count(*) AS deleted;
