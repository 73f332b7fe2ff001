// Title: Mark where a live analysis ended
// Answers: Records on an analysis that it holds the last workload of a live analysis that has ended (`protoxplore watch`), so that the live analysis's pages lead to it.
// Kind: write
// Parameters:
//   $analysis (string): analysis id of the ordinary analysis of the last workload
//   $live (string): the live analysis's key (its generations are KEY-N)
MATCH (a:Analysis {id: $analysis})
SET a.ended_live = [key IN coalesce(a.ended_live, []) WHERE key <> $live] + [$live]
RETURN a.id AS id;
