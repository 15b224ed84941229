// validate_gltf.mjs -- the Khronos glTF validator (npm gltf-validator, from
// tools/viewer/node_modules) on .glb files written by `ldlsim --gltf`:
//
//   node tests/browser/validate_gltf.mjs FILE.glb...
//
// Prints one line per file with its counts and every error and warning;
// exits 1 if any file has an error or a warning, 0 otherwise. Run by
// `make check-view` (part of `make test`).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename } from 'node:path';

const require = createRequire(new URL('../../tools/viewer/package.json', import.meta.url));
const validator = require('gltf-validator');

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error('usage: node tests/browser/validate_gltf.mjs FILE.glb...');
  process.exit(2);
}
let passed = 0, failed = 0;
for (const file of files) {
  const report = await validator.validateBytes(new Uint8Array(readFileSync(file)), {
    uri: basename(file),
    maxIssues: 50,
    externalResourceFunction: () => Promise.reject(new Error('no external resources')),
  });
  const { numErrors, numWarnings, numInfos, numHints } = report.issues;
  const info = report.info || {};
  const ok = numErrors === 0 && numWarnings === 0;
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${basename(file)}: ${numErrors} errors, ${numWarnings} warnings, ` +
              `${numInfos} infos, ${numHints} hints (${info.animationCount ?? 0} animation, ` +
              `${info.totalVertexCount ?? 0} vertices, ${info.drawCallCount ?? 0} draw calls)`);
  for (const m of report.issues.messages)
    if (m.severity <= 1) console.log(`     ${m.severity === 0 ? 'error' : 'warning'} ${m.code} ${m.pointer || ''}: ${m.message}`);
  if (ok) passed++; else failed++;
}
console.log(`glTF validator: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
