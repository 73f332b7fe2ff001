// Indexes of the ProtoGraph on FalkorDB (see schema/README.md). FalkorDB has no
// CREATE CONSTRAINT in Cypher: uniqueness of uid holds because every load writes a fresh
// analysis id and a published analysis is never written again.
CREATE INDEX FOR (n:Analysis) ON (n.id);
CREATE INDEX FOR (n:ProtoNode) ON (n.uid, n.analysis, n.victim, n.level);
CREATE INDEX FOR (n:VictimQuery) ON (n.uid, n.analysis);
CREATE INDEX FOR (n:VictimStage) ON (n.uid, n.analysis);
CREATE INDEX FOR (n:ImmediateExplanation) ON (n.uid, n.analysis, n.victim);
CREATE INDEX FOR (n:DeepExplanation) ON (n.uid, n.analysis, n.victim);
CREATE INDEX FOR (n:BlameExplanation) ON (n.uid, n.analysis);
CREATE INDEX FOR (n:CulpritStage) ON (n.uid, n.analysis);
CREATE INDEX FOR (n:CulpritQuery) ON (n.uid, n.analysis);
CREATE INDEX FOR (n:Host) ON (n.uid, n.analysis);
CREATE INDEX FOR (n:Resource) ON (n.uid, n.analysis);
CREATE INDEX FOR (n:Application) ON (n.uid, n.analysis);
