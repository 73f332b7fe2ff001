// Title: Mark where a live analysis ended
// Answers: Records on an analysis that it holds the last workload of a live analysis that has ended (`protoxplore watch`), so that the live analysis's pages lead to it.
// Kind: write
// Parameters:
//   $analysis (string): analysis id of the ordinary analysis of the last workload
//   $live (string): the live analysis's key (its generations are KEY-N)
// No row when it was marked already: nothing was written, and the watch saves nothing for it.
MATCH (a:Analysis {id: $analysis})
WHERE NOT $live IN coalesce(a.ended_live, [])
SET a.ended_live = coalesce(a.ended_live, []) + [$live]
RETURN a.id AS id;
