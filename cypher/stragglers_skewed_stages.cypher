// Title: Stages that suffer from skew
// Answers: Which stages have stragglers because they got more data than their siblings (input, shuffle read, shuffle write, output or result bytes as a cause with sign +, Hound, paper 002; protoxplore/loader/stragglers/expert.py SKEWED_AMOUNTS)? Strongest skew first, with the skewed metrics, the stragglers and how much later the stage ended because of them.
// Kind: canned
// Parameters:
//   $analysis (string): analysis id
//   $min_weight (float, default 0.2, from 0 to 1): least weight of skew among the stage's causes (their weights sum to at most 1)
//   $k (integer, default 10, from 1): how many stages
MATCH (c:StragglerCause {analysis: $analysis, skew: true})-[e:EXPLAINS]->(s:StragglerStage)
WITH s, sum(e.weight) AS weight, collect(c.metric) AS metrics
WHERE weight >= $min_weight
RETURN s.stage_key AS stage, s.name AS name, weight, metrics, s.stragglers AS stragglers, s.tasks AS tasks,
       s.slowdown_s AS slowdown_s
ORDER BY weight DESC, stage
LIMIT $k;
