// Title: Write the stages with stragglers (Hound)
// Answers: Creates a node per stage attempt with stragglers, linked from the causes that explain it (with the cause's weight in that stage) and to the hosts its stragglers ran on (with how many).
// Kind: write
// Parameters:
//   $analysis (string): analysis id
//   $rows (list): rows {uid, stage_key, name, query_key, tasks, stragglers, median_s, slowdown_s, expert_cause,
//     expert_metrics and expert_shares (the expert's what-ifs, largest share first), features (the learners'
//     features) and predictive, dependence, causal (each learner's profile in that order; all four null when
//     the stage was not learned), causes (list of {uid, weight}), hosts (list of {uid, stragglers})}
UNWIND $rows AS row
CREATE (s:StragglerStage {uid: row.uid, analysis: $analysis, stage_key: row.stage_key, name: row.name,
        query_key: row.query_key, tasks: row.tasks, stragglers: row.stragglers, median_s: row.median_s,
        slowdown_s: row.slowdown_s, expert_cause: row.expert_cause, expert_metrics: row.expert_metrics,
        expert_shares: row.expert_shares, features: row.features, predictive: row.predictive,
        dependence: row.dependence, causal: row.causal})
WITH s, row
UNWIND row.causes AS explained
MATCH (c:StragglerCause {uid: explained.uid})
CREATE (c)-[:EXPLAINS {analysis: $analysis, weight: explained.weight}]->(s);
UNWIND $rows AS row
UNWIND row.hosts AS ran
MATCH (s:StragglerStage {uid: row.uid})
WITH s, ran
MATCH (h:Host {uid: ran.uid})
CREATE (s)-[:STRAGGLERS_ON {analysis: $analysis, stragglers: ran.stragglers}]->(h);
