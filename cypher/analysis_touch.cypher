// Title: Touch an analysis
// Answers: Marks an analysis as the one loaded most recently (loading the same logs again makes it the default).
// Kind: write
// Parameters:
//   $analysis (string): analysis id
//   $time (float): seconds since the epoch
MATCH (a:Analysis {id: $analysis})
SET a.loaded = $time
RETURN a.id AS id;
