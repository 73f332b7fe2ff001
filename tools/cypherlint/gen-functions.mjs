// Regenerates neo4j5-functions.json and neo4j5-procedures.json: Neo4j's built-in functions and
// procedures for CYPHER 5, in the shape @neo4j-cypher/language-support's DbSchema expects.
// Source: the package's own `testData.mockSchema`, a dump of a real Neo4j server's
// SHOW FUNCTIONS / SHOW PROCEDURES (with the APOC and GDS plugins installed). Kept: functions
// flagged isBuiltIn, and procedures outside the plugins' namespaces (apoc.*, gds.*, genai.*).
// Usage (after install.sh): node gen-functions.mjs
import { writeFileSync } from 'node:fs';
import { testData } from '@neo4j-cypher/language-support';

const VERSION = 'CYPHER 5';
const PLUGINS = /^(apoc|gds|genai)\./;
const FUNCTION_FIELDS = ['name', 'category', 'description', 'isBuiltIn', 'argumentDescription', 'returnDescription',
  'signature', 'aggregating', 'isDeprecated', 'deprecatedBy'];
const PROCEDURE_FIELDS = ['name', 'description', 'mode', 'worksOnSystem', 'argumentDescription', 'returnDescription',
  'signature', 'admin', 'option', 'deprecatedBy'];

const pick = (obj, fields) => Object.fromEntries(fields.filter((f) => obj[f] !== undefined).map((f) => [f, obj[f]]));
const sorted = (entries) => Object.fromEntries(entries.sort(([a], [b]) => a.localeCompare(b)));

const functions = sorted(Object.entries(testData.mockSchema.functions[VERSION])
  .filter(([, f]) => f.isBuiltIn)
  .map(([name, f]) => [name, pick(f, FUNCTION_FIELDS)]));
const procedures = sorted(Object.entries(testData.mockSchema.procedures[VERSION])
  .filter(([name]) => !PLUGINS.test(name))
  .map(([name, p]) => [name, pick(p, PROCEDURE_FIELDS)]));

const here = new URL('.', import.meta.url);
writeFileSync(new URL('neo4j5-functions.json', here), JSON.stringify(functions, null, 1) + '\n');
writeFileSync(new URL('neo4j5-procedures.json', here), JSON.stringify(procedures, null, 1) + '\n');
console.log(`${Object.keys(functions).length} functions, ${Object.keys(procedures).length} procedures`);
