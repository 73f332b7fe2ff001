// Title: Begin an analysis
// Answers: Registers a new analysis as 'loading'; readers ignore it until it is published.
// Kind: write
// Parameters:
//   $analysis (string): analysis id
//   $meta (map): name, created, sources, options, counts and measured resources
CREATE (a:Analysis {id: $analysis, status: 'loading'})
SET a += $meta;
