// Title: Write Level 0 (victim queries)
// Answers: Creates the victim query nodes with their runtime, blocked time (blame_s), the part of it caused by their own other tasks (own_s) and their slowdown.
// Kind: write
// Parameters:
//   $analysis (string): analysis id
//   $rows (list): rows {uid, key, query_key, name, description, app, app_name, kind, pool, start_time, end_time, runtime_s, blame_s, task_time_s, own_s, slowdown, running, python}
UNWIND $rows AS row
CREATE (:ProtoNode:VictimQuery {uid: row.uid, analysis: $analysis, level: 0, key: row.key, victim: row.uid,
        query_key: row.query_key, name: row.name, description: row.description, app: row.app,
        app_name: row.app_name, kind: row.kind, pool: row.pool, start_time: row.start_time,
        end_time: row.end_time, runtime_s: row.runtime_s, blame_s: row.blame_s,
        task_time_s: row.task_time_s, own_s: row.own_s, slowdown: row.slowdown, running: row.running,
        python: row.python});
