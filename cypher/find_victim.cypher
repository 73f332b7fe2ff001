// Title: Find a victim query
// Answers: Which victim queries match a name, id or words of their description?
// Kind: canned
// Parameters:
//   $analysis (string): analysis id
//   $text (string): exact uid, query key, name or description, or text contained in the name or description (case-insensitive)
MATCH (q:VictimQuery {analysis: $analysis})
WHERE q.uid = $text OR q.query_key = $text OR q.name = $text
   OR toLower(q.name) CONTAINS toLower($text) OR toLower(q.description) CONTAINS toLower($text)
RETURN q.uid AS uid, q.name AS name, q.description AS description, q.query_key AS query_key, q.app_name AS app,
       q.runtime_s AS runtime_s, q.blame_s AS blocked_s, q.own_s AS own_s, q.slowdown AS slowdown,
       q.start_time AS start_time, q.end_time AS end_time, coalesce(q.running, false) AS running,
       coalesce(q.python, false) AS python,
       (q.uid = $text OR q.query_key = $text OR q.name = $text OR q.description = $text) AS exact
ORDER BY exact DESC, q.name;
