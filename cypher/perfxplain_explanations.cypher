// Title: Saved explanations of why runs differ (PerfXplain)
// Answers: Which explanations of why one run was slower than (or as fast as) another were saved for the runs of this analysis (paper 004)? Each with its two runs, its sentence and its three metrics, the latest saved first.
// Kind: canned
// Parameters:
//   $analysis (string): analysis id
//   $k (integer, default 10, from 1): how many explanations
MATCH (a:VictimQuery)<-[:FIRST_RUN]-(e:PerfExplanation)-[:SECOND_RUN]->(b:VictimQuery)
WHERE e.analysis = $analysis OR e.other_analysis = $analysis
RETURN e.uid AS uid, a.name AS first, a.analysis AS first_analysis, b.name AS second, b.analysis AS second_analysis,
       e.sentence AS sentence, e.method AS method, e.relevance AS relevance, e.precision AS precision,
       e.generality AS generality, e.saved AS saved
ORDER BY saved DESC, uid
LIMIT $k;
