// Title: A victim's walk as a graph
// Answers: Which chains lead from the culprit queries (Level 6) down to this victim (Level 0)? The top-k weighted paths as nodes and IMPACTS relationships, so that Neo4j Browser draws the seven levels (the same paths as top_paths, which returns them as rows).
// Kind: graph
// Parameters:
//   $analysis (string): analysis id
//   $victim (string): uid of the victim query
//   $k (integer, default 10, from 1): how many paths
MATCH (q:VictimQuery {analysis: $analysis, uid: $victim})
MATCH p = (cq:CulpritQuery)-[:IMPACTS]->(cs:CulpritStage)-[:IMPACTS]->(b:BlameExplanation)
          -[:IMPACTS]->(d:DeepExplanation)-[:IMPACTS]->(i:ImmediateExplanation)-[:IMPACTS]->(s:VictimStage)
          -[:IMPACTS]->(q)
RETURN p
ORDER BY b.blame_s DESC, b.uid
LIMIT $k;
