// Title: Delete part of an analysis
// Answers: Deletes up to $limit nodes of one analysis (run until it returns 0), then its entities.
// Kind: write
// Parameters:
//   $analysis (string): analysis id
//   $limit (integer, default 5000, from 1): nodes per call, to bound each transaction (PROTOXPLORE_BATCH_SIZE)
// Why a scan of every label first: FalkorDB 4.16 (the embedded engine) takes a deleted node out of a
// label only if that label's matrix was brought to the graph's size in the deleting query, which a
// scan of the label does (an index lookup does not). Deleted without, after a load had grown the
// graph (a live generation written, then the one before deleted), nodes stayed listed under their
// level labels with their properties gone, and the next scan of such a label failed with
// "Attempted to access undefined attribute" (FalkorDB issue #2103, fixed in 4.20; tested by
// tests/test_reliability.py::test_a_generation_replaced_after_a_large_write_leaves_no_ghost).
OPTIONAL MATCH (l0:VictimQuery) WITH l0 LIMIT 1
OPTIONAL MATCH (l1:VictimStage) WITH l1 LIMIT 1
OPTIONAL MATCH (l2:ImmediateExplanation) WITH l2 LIMIT 1
OPTIONAL MATCH (l3:DeepExplanation) WITH l3 LIMIT 1
OPTIONAL MATCH (l4:BlameExplanation) WITH l4 LIMIT 1
OPTIONAL MATCH (l5:CulpritStage) WITH l5 LIMIT 1
OPTIONAL MATCH (l6:CulpritQuery) WITH l6 LIMIT 1
OPTIONAL MATCH (p:ProtoNode) WITH p LIMIT 1
MATCH (n:ProtoNode {analysis: $analysis})
WITH n LIMIT $limit
DETACH DELETE n
RETURN count(*) AS deleted;
