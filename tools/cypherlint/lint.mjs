// Lints .cypher files with Neo4j's own Cypher parser and semantic analysis
// (npm @neo4j-cypher/language-support), as Neo4j 5 (CYPHER 5) would take them.
//
// Usage: node lint.mjs FILE...
// Prints JSON: {"FILE": [{"line", "column", "message", "severity"}, ...], ...} (1-based line and
// column in FILE; severity "error", "warning" or "info"); exit 0 whatever it found, 2 on bad usage.
//
// Statements are split as protoxplore/queries.py splits them: lines starting with `//` are
// comments, `;` at the end of a line ends a statement. Lines starting with `:` (`:param`,
// `:play`, Neo4j Browser commands) are not Cypher and are skipped. Functions and procedures are
// checked against Neo4j 5's built-ins only (neo4j5-functions.json, neo4j5-procedures.json, made
// by gen-functions.mjs), so a function of another engine (FalkorDB's vecf32, algo.*) or of a
// plugin (APOC, GDS) is flagged. Parameters ($analysis) are never flagged.
import { readFileSync } from 'node:fs';
import { lintCypherQuery, isNotParamError } from '@neo4j-cypher/language-support';

const VERSION = 'CYPHER 5';
const load = (name) => JSON.parse(readFileSync(new URL(name, import.meta.url), 'utf8'));
const schema = {
  functions: { [VERSION]: load('neo4j5-functions.json') },
  procedures: { [VERSION]: load('neo4j5-procedures.json') },
  defaultLanguage: VERSION,
};
const SEVERITY = { 1: 'error', 2: 'warning', 3: 'info', 4: 'info' };

function statements(text) {
  // [{text, line}]: each statement with the 1-based line of FILE where its text starts. Comment
  // and `:` lines inside a statement become empty lines, so that lines keep their numbers.
  const out = [];
  let lines = [];
  let start = null;
  text.split(/\r?\n/).forEach((raw, i) => {
    const stripped = raw.trim();
    const skipped = stripped.startsWith('//') || stripped.startsWith(':');
    if (start === null && (skipped || stripped === '')) return;
    if (start === null) start = i + 1;
    lines.push(skipped ? '' : raw);
    if (!skipped && /;\s*$/.test(raw)) {
      lines[lines.length - 1] = raw.replace(/;\s*$/, '');
      out.push({ text: lines.join('\n'), line: start });
      lines = [];
      start = null;
    }
  });
  if (lines.join('').trim()) out.push({ text: lines.join('\n'), line: start });
  return out;
}

function lintText(text) {
  const problems = [];
  for (const stmt of statements(text)) {
    const { diagnostics } = lintCypherQuery(stmt.text, schema, { consoleCommandsEnabled: false });
    for (const d of diagnostics.filter(isNotParamError)) {
      problems.push({
        line: stmt.line + d.range.start.line,
        column: d.range.start.character + 1,
        message: d.message,
        severity: SEVERITY[d.severity] ?? 'error',
      });
    }
  }
  return problems.sort((a, b) => a.line - b.line || a.column - b.column);
}

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error('usage: node lint.mjs FILE.cypher...');
  process.exit(2);
}
const report = {};
for (const file of files) report[file] = lintText(readFileSync(file, 'utf8'));
process.stdout.write(JSON.stringify(report, null, 1) + '\n');
