// Title: Hosts that produce stragglers of one cause
// Answers: Which hosts ran the stragglers of the stages that one kind of cause explains ($cause: gc, input, cpu, shuffle write, shuffle read, scheduling, first task, contention, speculation, deserialization, output, spill, locality: protoxplore/loader/stragglers/expert.py CAUSE; Hound, paper 002)? Per host, its stragglers in those stages weighted by the cause's weight there, the stragglers and the stages.
// Kind: canned
// Parameters:
//   $analysis (string): analysis id
//   $cause (string, default gc): the kind of cause
//   $sign (string, default +, one of + -): + for stragglers with more of it than normal tasks, - for less (a limited
//     processor, cpu_rate(-), is contention with +)
//   $min_weight (float, default 0.2, from 0 to 1): least weight of the cause among a stage's causes (they sum to at most 1)
//   $k (integer, default 10, from 1): how many hosts
// A kind may hold two metrics (input has scan_s and read_bytes), so their weights add up per stage first.
MATCH (c:StragglerCause {analysis: $analysis, cause: $cause, direction: $sign})-[e:EXPLAINS]->(s:StragglerStage)
WITH s, sum(e.weight) AS weight
WHERE weight >= $min_weight
MATCH (s)-[o:STRAGGLERS_ON]->(h:Host)
RETURN h.name AS host, sum(weight * o.stragglers) AS weighted_stragglers, sum(o.stragglers) AS stragglers,
       count(DISTINCT s) AS stages
ORDER BY weighted_stragglers DESC, host
LIMIT $k;
