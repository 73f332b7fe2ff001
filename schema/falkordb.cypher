// Indexes of the ProtoGraph on FalkorDB (see schema/README.md). FalkorDB has no
// CREATE CONSTRAINT in Cypher: the unique constraint on Analysis.id (backed by the index below)
// is created by the GRAPH.CONSTRAINT command in FalkorStore.apply_schema. Uniqueness of uid
// follows: one writer per analysis id at a time, and an analysis begun only after any leftover
// of a dead writer is removed (protoxplore/storage/lifecycle.py, docs/reliability.md).
// Only the lookups the writes and pages need are indexed: FalkorDB re-indexes a node whenever
// any of its properties is set, so an index on the ~100,000s of blame nodes would make the
// IF and DOR procedures several times slower (bench/bench_core.py). For the same reason
// DeepExplanation is not indexed either: its blame nodes are written with it
// (cypher/write_deep_and_blame.cypher); a page that looks one up by uid scans the label.
CREATE INDEX FOR (n:Analysis) ON (n.id);
CREATE INDEX FOR (n:VictimQuery) ON (n.uid, n.analysis);
CREATE INDEX FOR (n:VictimStage) ON (n.uid);
CREATE INDEX FOR (n:ImmediateExplanation) ON (n.uid, n.victim);
CREATE INDEX FOR (n:CulpritStage) ON (n.uid);
CREATE INDEX FOR (n:CulpritQuery) ON (n.uid, n.analysis);
CREATE INDEX FOR (n:Host) ON (n.uid);
CREATE INDEX FOR (n:Resource) ON (n.uid);
CREATE INDEX FOR (n:Application) ON (n.uid);
CREATE INDEX FOR (n:StragglerStage) ON (n.uid);
CREATE INDEX FOR (n:StragglerCause) ON (n.uid, n.analysis);
CREATE INDEX FOR (n:PerfExplanation) ON (n.uid, n.analysis, n.other_analysis);
CREATE INDEX FOR (n:PerfFeature) ON (n.uid);
