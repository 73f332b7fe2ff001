// Title: Saved explanations of why runs differ, as a graph (PerfXplain)
// Answers: The saved explanations that name runs of this analysis, drawn with their two runs (FIRST_RUN, SECOND_RUN) and the features they name (BECAUSE, DESPITE: click one to read its predicate; a feature node holds the two runs' values), so that Neo4j Browser shows them (paper 004).
// Kind: graph
// Parameters:
//   $analysis (string): analysis id
//   $k (integer, default 10, from 1): how many explanations
MATCH (e:PerfExplanation)
WHERE e.analysis = $analysis OR e.other_analysis = $analysis
WITH e ORDER BY e.saved DESC, e.uid LIMIT $k
MATCH p = (e)-[:FIRST_RUN|SECOND_RUN|BECAUSE|DESPITE]->()
RETURN p;
