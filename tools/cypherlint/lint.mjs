// Lints .cypher files with Neo4j's own parser (@neo4j-cypher/language-support) for Neo4j 5.
// Usage: node lint.mjs FILE...   Prints JSON: {"FILE": [{line, column, message, severity}], ...}
// Statements are split as protoxplore/queries.py does: `//` lines are comments, `;` ends a
// statement at the end of a line. Functions are checked against Neo4j 5's built-ins only (the
// package's Neo4j function list without plugins such as APOC or GDS), so engine-specific
// functions are flagged.
import { readFileSync } from 'node:fs';
import { lintCypherQuery, isNotParamError, testData } from '@neo4j-cypher/language-support';

const PLUGINS = /^(apoc|gds|genai|db\.create|graph)\./;
const builtIn = (registry) => Object.fromEntries(Object.entries(registry || {}).filter(([name]) => !PLUGINS.test(name)));
const functions = testData.mockSchema.functions['CYPHER 5'];
const schema = { functions: { 'CYPHER 5': builtIn(functions) }, procedures: { 'CYPHER 5': {} }, defaultLanguage: 'CYPHER 5' };

function statements(text) {
  // Returns [{text, line}] with the 1-based line where each statement starts.
  const out = [];
  let current = [];
  let start = null;
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (line.startsWith('//') || line.startsWith(':') || (line === '' && start === null)) return;
    if (start === null) start = i + 1;
    current.push(raw);
    if (/;\s*$/.test(raw)) {
      out.push({ text: current.join('\n').replace(/;\s*$/, ''), line: start });
      current = [];
      start = null;
    }
  });
  if (current.join('').trim()) out.push({ text: current.join('\n'), line: start });
  return out;
}

const report = {};
for (const file of process.argv.slice(2)) {
  report[file] = [];
  for (const stmt of statements(readFileSync(file, 'utf8'))) {
    const { diagnostics } = lintCypherQuery(stmt.text, schema);
    for (const d of diagnostics.filter(isNotParamError)) {
      report[file].push({ line: stmt.line + d.range.start.line, column: d.range.start.character + 1,
                          message: d.message, severity: d.severity === 1 ? 'error' : 'warning' });
    }
  }
}
console.log(JSON.stringify(report, null, 1));
