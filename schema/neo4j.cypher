// Constraints and indexes of the ProtoGraph on Neo4j 5 (see schema/README.md for labels and properties).
CREATE CONSTRAINT analysis_id IF NOT EXISTS FOR (n:Analysis) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT victim_query_uid IF NOT EXISTS FOR (n:VictimQuery) REQUIRE n.uid IS UNIQUE;
CREATE CONSTRAINT victim_stage_uid IF NOT EXISTS FOR (n:VictimStage) REQUIRE n.uid IS UNIQUE;
CREATE CONSTRAINT immediate_uid IF NOT EXISTS FOR (n:ImmediateExplanation) REQUIRE n.uid IS UNIQUE;
CREATE CONSTRAINT deep_uid IF NOT EXISTS FOR (n:DeepExplanation) REQUIRE n.uid IS UNIQUE;
CREATE CONSTRAINT blame_uid IF NOT EXISTS FOR (n:BlameExplanation) REQUIRE n.uid IS UNIQUE;
CREATE CONSTRAINT culprit_stage_uid IF NOT EXISTS FOR (n:CulpritStage) REQUIRE n.uid IS UNIQUE;
CREATE CONSTRAINT culprit_query_uid IF NOT EXISTS FOR (n:CulpritQuery) REQUIRE n.uid IS UNIQUE;
CREATE CONSTRAINT host_uid IF NOT EXISTS FOR (n:Host) REQUIRE n.uid IS UNIQUE;
CREATE CONSTRAINT resource_uid IF NOT EXISTS FOR (n:Resource) REQUIRE n.uid IS UNIQUE;
CREATE CONSTRAINT application_uid IF NOT EXISTS FOR (n:Application) REQUIRE n.uid IS UNIQUE;
CREATE CONSTRAINT straggler_stage_uid IF NOT EXISTS FOR (n:StragglerStage) REQUIRE n.uid IS UNIQUE;
CREATE CONSTRAINT straggler_cause_uid IF NOT EXISTS FOR (n:StragglerCause) REQUIRE n.uid IS UNIQUE;
CREATE INDEX proto_node_analysis IF NOT EXISTS FOR (n:ProtoNode) ON (n.analysis, n.victim, n.level);
CREATE INDEX victim_query_analysis IF NOT EXISTS FOR (n:VictimQuery) ON (n.analysis);
CREATE INDEX culprit_query_analysis IF NOT EXISTS FOR (n:CulpritQuery) ON (n.analysis);
CREATE INDEX culprit_stage_analysis IF NOT EXISTS FOR (n:CulpritStage) ON (n.analysis);
CREATE INDEX straggler_cause_analysis IF NOT EXISTS FOR (n:StragglerCause) ON (n.analysis);
