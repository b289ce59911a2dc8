/**
 * Builds src/test/us-core/us-core-6.1.0.json.gz, the US Core 6.1.0 definitions the FHIR tests
 * validate against, from the package `hl7.fhir.us.core#6.1.0` (HL7, CC0): its StructureDefinitions,
 * ValueSets, CodeSystems, SearchParameters and the server CapabilityStatement, as one collection
 * Bundle, without their narrative and prose (the validator reads neither). The package is public:
 * packages.fhir.org, or ONC's Inferno US Core test kit (inferno-framework/us-core-test-kit,
 * lib/us_core_test_kit/igs/us_core_610.tgz).
 *
 *   node --import tsx scripts/us-core-package.ts path/to/unpacked/package
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

const dir = process.argv[2];
if (!dir) throw new Error('usage: us-core-package.ts <unpacked package directory>');
const kept = /^(StructureDefinition|ValueSet|CodeSystem|SearchParameter)-.*\.json$|^CapabilityStatement-us-core-server\.json$/;
const prose = ['mapping', 'comment', 'requirements', 'definition', 'short', 'alias'];

const resources = readdirSync(dir)
  .filter((name) => kept.test(name))
  .sort()
  .map((name) => {
    const resource = JSON.parse(readFileSync(join(dir, name), 'utf8'));
    delete resource.text;
    delete resource.differential;
    delete resource.mapping;
    for (const element of resource.snapshot?.element ?? []) for (const key of prose) delete element[key];
    return resource;
  });
const bundle = { resourceType: 'Bundle', type: 'collection', entry: resources.map((resource) => ({ resource })) };
const out = new URL('../src/test/us-core/us-core-6.1.0.json.gz', import.meta.url);
writeFileSync(out, gzipSync(JSON.stringify(bundle), { level: 9 }));
console.log(`${resources.length} resources written to ${out.pathname}`);
