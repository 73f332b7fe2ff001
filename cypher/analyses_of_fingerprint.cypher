// Title: Analyses of these logs
// Answers: Is any analysis of the logs of this fingerprint stored, whatever its status (its saved trace is needed while one is)?
// Kind: internal
// Parameters:
//   $fingerprint (string): the logs' fingerprint (trace.fingerprint)
MATCH (a:Analysis {fingerprint: $fingerprint})
RETURN a.id AS id
LIMIT 1;
