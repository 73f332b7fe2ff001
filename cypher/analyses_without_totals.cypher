// Title: Analyses without host and resource totals
// Answers: Which complete analyses were loaded before their hosts' and resources' totals were stored (so overview_totals.cypher must run for them once)?
// Kind: internal
// Parameters: none
MATCH (a:Analysis)
WHERE a.status = 'complete' AND a.totals IS NULL
RETURN a.id AS id
