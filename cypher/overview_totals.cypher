// Title: Host and resource totals
// Answers: Sets each host's and resource's totals over all victims of an analysis (blocked seconds, sum of IF, summed DOR, victims: the overview's slow nodes and hot resources, cypher/slow_nodes.cypher and hot_resources.cypher), and marks the analysis as having them.
// Kind: procedure
// Parameters:
//   $analysis (string): analysis id
// Run after compute_impact_and_dor.cypher by every load, and once by lifecycle.add_totals for an
// analysis loaded before the totals were stored. A published analysis never changes, so they are
// summed once instead of over every explanation on each page view.
MATCH (:ImmediateExplanation {analysis: $analysis})<-[e:IMPACTS]-(d:DeepExplanation)
WITH d.host AS host, sum(e.impact_factor) AS impact, sum(d.dor) AS dor, sum(d.blame_s) AS blame_s,
     count(DISTINCT d.victim) AS victims
MATCH (h:Host {analysis: $analysis, name: host})
SET h.impact = impact, h.dor = dor, h.blame_s = blame_s, h.victims = victims;
MATCH (i:ImmediateExplanation {analysis: $analysis})-[e:IMPACTS]->(:VictimStage)
WITH i.resource AS resource, sum(e.impact_factor) AS impact, sum(i.dor) AS dor, sum(i.blame_s) AS blame_s,
     count(DISTINCT i.victim) AS victims
MATCH (r:Resource {analysis: $analysis, name: resource})
SET r.impact = impact, r.dor = dor, r.blame_s = blame_s, r.victims = victims;
MATCH (a:Analysis {id: $analysis})
SET a.totals = true;
