// Title: Save a PerfXplain explanation
// Answers: Stores why one run performed differently from another (paper 004): an explanation node linked to its two runs (FIRST_RUN, SECOND_RUN) and, by BECAUSE and DESPITE relationships that carry each predicate, to a node per raw feature it names with the two runs' values. Written only by `why-slower|why-same|pxql --save` and the compare page's Save button (a POST), in one statement: all or nothing. Saving the same explanation again changes nothing but `saved`. Nothing is written when a run's analysis is not complete (one being deleted).
// Kind: write
// Parameters:
//   $uid (string): the explanation's uid (the first run's analysis, '|why/', a hash of the question and the answer)
//   $first (string): uid of the first run (A, a VictimQuery)
//   $second (string): uid of the second run (B, a VictimQuery)
//   $props (map): sentence, method, pxql, relevance, precision, generality, examples, width, despite, because (texts)
//   $because (list): rows {uid, name, first, second, feature, op, value, position}, one per predicate of the because clause
//   $despite (list): the same for the despite clause (the user's and the grown one)
//   $saved (float): when it is saved (seconds since the epoch)
MATCH (a:VictimQuery {uid: $first})
MATCH (:Analysis {id: a.analysis, status: 'complete'})
MATCH (b:VictimQuery {uid: $second})
MATCH (:Analysis {id: b.analysis, status: 'complete'})
MERGE (e:PerfExplanation {uid: $uid})
ON CREATE SET e += $props, e.analysis = a.analysis, e.other_analysis = b.analysis, e.first = a.uid, e.second = b.uid,
              e.created = $saved
SET e.saved = $saved
MERGE (e)-[:FIRST_RUN]->(a)
MERGE (e)-[:SECOND_RUN]->(b)
FOREACH (f IN $because |
  MERGE (x:PerfFeature {uid: f.uid})
  ON CREATE SET x.analysis = a.analysis, x.other_analysis = b.analysis, x.name = f.name, x.first = f.first,
                x.second = f.second
  MERGE (e)-[r:BECAUSE {position: f.position}]->(x)
  ON CREATE SET r.feature = f.feature, r.op = f.op, r.value = f.value)
FOREACH (f IN $despite |
  MERGE (x:PerfFeature {uid: f.uid})
  ON CREATE SET x.analysis = a.analysis, x.other_analysis = b.analysis, x.name = f.name, x.first = f.first,
                x.second = f.second
  MERGE (e)-[r:DESPITE {position: f.position}]->(x)
  ON CREATE SET r.feature = f.feature, r.op = f.op, r.value = f.value)
RETURN e.uid AS uid, e.created = $saved AS created;
