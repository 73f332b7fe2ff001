// Title: Publish an analysis
// Answers: Marks a fully written analysis as complete, so that every query can see it (only its own writer can).
// Kind: write
// Parameters:
//   $analysis (string): analysis id
//   $writer (string): the writer that began it (host:pid)
MATCH (a:Analysis {id: $analysis})
WHERE a.status = 'loading' AND a.writer = $writer
SET a.status = 'complete'
RETURN a.id AS id;
