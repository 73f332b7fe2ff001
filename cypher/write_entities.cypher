// Title: Write hosts, resources and applications
// Answers: Creates the trace entities users ask about, one analysis at a time.
// Kind: write
// Parameters:
//   $analysis (string): analysis id
//   $hosts (list): rows {uid, name, tasks, peak_heap_bytes, peak_execution_bytes, peak_storage_bytes}
//     (memory peaks in bytes from Spark's executor metrics; null when the logs do not have them)
//   $resources (list): rows {uid, name, measured}
//   $apps (list): rows {uid, app_key, app_id, name, spark_version, source, complete}
UNWIND $hosts AS row
CREATE (:Host {uid: row.uid, analysis: $analysis, name: row.name, tasks: row.tasks, peak_heap_bytes: row.peak_heap_bytes,
              peak_execution_bytes: row.peak_execution_bytes, peak_storage_bytes: row.peak_storage_bytes});
UNWIND $resources AS row
CREATE (:Resource {uid: row.uid, analysis: $analysis, name: row.name, measured: row.measured});
UNWIND $apps AS row
CREATE (:Application {uid: row.uid, analysis: $analysis, app_key: row.app_key, app_id: row.app_id, name: row.name,
                      spark_version: row.spark_version, source: row.source, complete: row.complete});
