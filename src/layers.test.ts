import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

/**
 * The layers point one way: entry points (cli) → app → modules → the shared mechanisms → the model
 * (formation, tenancy, events) → the wire format → db. The mechanisms are layered too: the
 * platform (the Area and its merging) → records → the unit of work → http (the request context,
 * services) → the leaf mechanisms (jobs, files, providers). A file imports its own layer or lower;
 * an area reaches another only through that area's index.ts; and no imports form a cycle. Tests
 * and test support are outside the rule.
 */

const layers: [string, RegExp][] = [
  ['db', /^(db\/|config\.ts$)/],
  ['wire', /^wire\//],
  ['model', /^(formation|tenancy|events)\//],
  ['leaf mechanisms', /^(jobs|files|providers)\//],
  ['http', /^http\//],
  ['work', /^work\//],
  ['records', /^records\//],
  ['platform', /^platform\//],
  ['modules', /^modules\//],
  ['app', /^(app|areas)\.ts$/],
  ['entry', /^(cli\.ts$|cli\/)/],
];

function layerOf(file: string): number {
  const index = layers.findIndex(([, pattern]) => pattern.test(file));
  assert.ok(index >= 0, `${file} is in no layer: add its folder to src/layers.test.ts`);
  return index;
}

const isTest = (file: string) => file.endsWith('.test.ts') || file.endsWith('/fixtures.ts') || file.startsWith('test/');
const files = fs
  .readdirSync('src', { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.ts') && !isTest(file))
  .map((file) => file.split(path.sep).join('/'));

/** Each file's imports of other source files (type-only ones too: they also tie the code together). */
const imports = new Map<string, string[]>(
  files.map((file) => {
    const text = fs.readFileSync(path.join('src', file), 'utf8');
    const specifiers = [...text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)].map((match) => match[1]!);
    return [file, specifiers.map((specifier) => path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier)))];
  }),
);

const areaOf = (file: string) => /^modules\/([^/]+)\//.exec(file)?.[1];

test('every import points to its own layer or a lower one', () => {
  const wrong: string[] = [];
  for (const [file, targets] of imports) {
    for (const target of targets) {
      if (isTest(target)) wrong.push(`${file} imports test support ${target}`);
      else if (layerOf(target) > layerOf(file)) {
        wrong.push(`${file} (${layers[layerOf(file)]![0]}) imports ${target} (${layers[layerOf(target)]![0]})`);
      }
    }
  }
  assert.deepEqual(wrong, []);
});

test("an area reaches another area only through that area's index.ts; the app and the CLI, also through area.ts", () => {
  const wrong: string[] = [];
  for (const [file, targets] of imports) {
    const from = areaOf(file);
    for (const target of targets) {
      const to = areaOf(target);
      if (!to || to === from) continue;
      const face = target === `modules/${to}/index.ts`;
      const allowed = from ? face : face || target === `modules/${to}/area.ts`;
      if (!allowed) wrong.push(`${file} imports ${target}`);
    }
  }
  assert.deepEqual(wrong, []);
});

test('no imports form a cycle', () => {
  // Tarjan's strongly connected components: a component of more than one file is a cycle.
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (file: string) => {
    index.set(file, next);
    low.set(file, next);
    next += 1;
    stack.push(file);
    onStack.add(file);
    for (const target of imports.get(file) ?? []) {
      if (!imports.has(target)) continue;
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file)!, index.get(target)!));
      }
    }
    if (low.get(file) === index.get(file)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== file);
      if (component.length > 1) cycles.push(component.sort());
    }
  };
  for (const file of imports.keys()) if (!index.has(file)) visit(file);
  assert.deepEqual(cycles, []);
});
