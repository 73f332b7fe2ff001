// Title: Mark a live analysis whose watch stopped
// Answers: Records that the `protoxplore watch` publishing these generations was stopped (Ctrl-C): they stay listed as last published, and their pages stop refreshing.
// Kind: write
// Parameters:
//   $analyses (list): ids of the generation's analyses (its total and its window)
//   $time (float): seconds since the epoch
MATCH (a:Analysis)
WHERE a.id IN $analyses
SET a.watch_stopped = $time
RETURN a.id AS id;
