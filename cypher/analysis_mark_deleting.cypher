// Title: Mark an analysis as being deleted
// Answers: Hides an analysis from every listing at once, before its nodes are deleted in batches (a delete that dies leaves it 'deleting'; the next command finishes it).
// Kind: write
// Parameters:
//   $analysis (string): analysis id
//   $writer (string): who deletes it (host:pid): a delete that dies is finished once this process is gone
MATCH (a:Analysis {id: $analysis})
SET a.status = 'deleting', a.writer = $writer
RETURN a.id AS id;
