// Title: Begin an analysis
// Answers: Registers a new analysis as 'loading' unless one with this id exists (compare-and-set: the returned writer is $writer only when this call created it); readers ignore it until it is published.
// Kind: write
// Parameters:
//   $analysis (string): analysis id
//   $writer (string): who writes it (host:pid), compared by the caller with the returned writer
//   $meta (map): name, created, sources, options, counts and measured resources
MERGE (a:Analysis {id: $analysis})
ON CREATE SET a += $meta, a.status = 'loading', a.writer = $writer
RETURN a.status AS status, a.writer AS writer;
