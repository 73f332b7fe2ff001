// Title: Publish an analysis
// Answers: Marks a fully written analysis as complete, so that every query can see it.
// Kind: write
// Parameters:
//   $analysis (string): analysis id
MATCH (a:Analysis {id: $analysis})
SET a.status = 'complete'
RETURN a.id AS id;
