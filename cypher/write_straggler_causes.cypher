// Title: Write the straggler causes (Hound)
// Answers: Creates the causes of stragglers found in an analysis, one node per signed feature such as gc_s(+).
// Kind: write
// Parameters:
//   $analysis (string): analysis id
//   $rows (list): rows {uid, name, metric, sign, cause, direction, skew} (cause is the kind of cause the signed
//     feature names and direction whether stragglers have more (+) or less (-) of that kind: cpu_rate(-) is
//     contention, +; skew is true for a + on an amount of data, i.e. stragglers got more data than their siblings)
UNWIND $rows AS row
CREATE (:StragglerCause {uid: row.uid, analysis: $analysis, name: row.name, metric: row.metric, sign: row.sign,
        cause: row.cause, direction: row.direction, skew: row.skew});
