// Title: The stored stages with stragglers (Hound)
// Answers: Which stages of an analysis have stragglers, with what the load stored for each: its causes (signed features with their weights), the hosts its stragglers ran on, the three learners' profiles and the expert baseline's what-ifs? What `protoxplore stragglers` and the stragglers page show.
// Kind: internal
// Parameters:
//   $analysis (string): analysis id (a full analysis: a time window's stragglers are its parent's)
MATCH (s:StragglerStage {analysis: $analysis})
OPTIONAL MATCH (c:StragglerCause)-[e:EXPLAINS]->(s)
WITH s, collect(CASE WHEN c IS NULL THEN null ELSE {metric: c.metric, sign: c.sign, weight: e.weight} END) AS causes
OPTIONAL MATCH (s)-[o:STRAGGLERS_ON]->(h:Host)
WITH s, causes, collect(CASE WHEN h IS NULL THEN null ELSE {host: h.name, stragglers: o.stragglers} END) AS hosts
RETURN s.stage_key AS stage, s.name AS name, s.query_key AS query, s.tasks AS tasks, s.stragglers AS stragglers,
       s.median_s AS median_s, s.slowdown_s AS slowdown_s, causes, hosts, s.features AS features,
       s.predictive AS predictive, s.dependence AS dependence, s.causal AS causal, s.expert_cause AS expert_cause,
       s.expert_metrics AS expert_metrics, s.expert_shares AS expert_shares
ORDER BY stage;
