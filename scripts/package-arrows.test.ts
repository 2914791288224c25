import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  arrowViolations,
  type Manifest,
  manifestEdges,
  providerCrossings,
  providerPackages,
} from './package-arrows.js';
import { readPackageImports } from './package-imports.js';

const root = fileURLToPath(new URL('..', import.meta.url));

/** The root package.json and every package.json one level under packages/ and examples/. */
function workspaceManifests(): Manifest[] {
  const folders = ['packages', 'examples'].flatMap((parent) =>
    readdirSync(join(root, parent), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => `${parent}/${entry.name}`),
  );
  return ['', ...folders]
    .filter((folder) => existsSync(join(root, folder, 'package.json')))
    .map((folder) => ({
      ...JSON.parse(readFileSync(join(root, folder, 'package.json'), 'utf8')),
      path: join(folder, 'package.json'),
    }));
}

/** A manifest as a package.json under packages/ would give it. */
const manifest = (
  name: string,
  fields: Partial<Omit<Manifest, 'name' | 'path'>> = {},
  path = `packages/${name}/package.json`,
) => ({
  name,
  path,
  ...fields,
});
const ws = 'workspace:*';

describe('package arrows', () => {
  it('every package.json dependency among our packages follows the arrow table', () => {
    const manifests = workspaceManifests();
    expect(manifests.map((manifest) => manifest.name)).toContain('@verikit/provider');
    expect(arrowViolations(manifests)).toEqual([]);
  });
});

describe('arrowViolations', () => {
  it('accepts the arrows the table allows', () => {
    expect(
      arrowViolations([
        manifest('@verikit/provider'),
        manifest('@verikit/core', { dependencies: { '@verikit/provider': ws, zod: '^4' } }),
        manifest('@verikit/gateway', {
          dependencies: { '@verikit/provider': ws },
          devDependencies: { '@verikit/core': ws, '@verikit/sandbox': ws, '@verikit/http': ws },
        }),
        manifest('@verikit/sandbox', { dependencies: { '@verikit/provider': ws } }),
        manifest('@verikit/http', { dependencies: { '@verikit/core': ws, '@verikit/provider': ws } }),
        manifest('demo', { dependencies: { '@verikit/cli': ws } }, 'examples/demo/package.json'),
      ]),
    ).toEqual([]);
  });

  it('names a runtime dependency that points the wrong way', () => {
    expect(arrowViolations([manifest('@verikit/provider', { dependencies: { '@verikit/core': ws } })])).toEqual([
      '@verikit/provider dependencies -> @verikit/core points the wrong way: @verikit/provider may depend on none of our packages',
    ]);
    expect(arrowViolations([manifest('@verikit/gateway', { peerDependencies: { '@verikit/core': ws } })])).toEqual([
      '@verikit/gateway peerDependencies -> @verikit/core points the wrong way: @verikit/gateway may depend on @verikit/provider, @verikit/provider-utils',
    ]);
  });

  it('keeps core and provider-utils independent of each other', () => {
    expect(
      arrowViolations([manifest('@verikit/core', { dependencies: { '@verikit/provider-utils': ws } })]),
    ).toHaveLength(1);
    expect(
      arrowViolations([manifest('@verikit/provider-utils', { dependencies: { '@verikit/core': ws } })]),
    ).toHaveLength(1);
  });

  it('lets the browser client depend on none of our packages', () => {
    expect(arrowViolations([manifest('@verikit/client', { dependencies: { '@verikit/core': ws } })])).toHaveLength(1);
    expect(arrowViolations([manifest('@verikit/react', { dependencies: { '@verikit/client': ws } })])).toEqual([]);
  });

  it('refuses a devDependency on a higher tier', () => {
    expect(arrowViolations([manifest('@verikit/core', { devDependencies: { '@verikit/http': ws } })])).toEqual([
      '@verikit/core devDependencies -> @verikit/http points up: a devDependency may name what @verikit/core may depend on, or a package of tier 2 or lower, and @verikit/http is tier 3',
    ]);
  });

  it('refuses a cycle, even one closed through devDependencies', () => {
    const problems = arrowViolations([
      manifest('@verikit/gateway', {
        dependencies: { '@verikit/provider': ws },
        devDependencies: { '@verikit/sandbox': ws },
      }),
      manifest('@verikit/sandbox', { dependencies: { '@verikit/gateway': ws } }),
    ]);
    expect(problems).toEqual(['dependency cycle: @verikit/gateway -> @verikit/sandbox -> @verikit/gateway']);
  });

  it('asks for a package missing from the table to be added', () => {
    expect(arrowViolations([manifest('@verikit/unknown')])).toEqual([
      '@verikit/unknown (packages/@verikit/unknown/package.json) is not in the arrow table: add it to packageArrows in scripts/package-arrows.ts with its tier and the packages it may depend on',
    ]);
  });

  it('refuses a dependency on one of our packages that is missing from the table', () => {
    expect(arrowViolations([manifest('@verikit/core', { dependencies: { '@verikit/nowhere': ws } })])).toHaveLength(1);
    expect(arrowViolations([manifest('@verikit/core', { devDependencies: { '@verikit/nowhere': ws } })])).toEqual([
      '@verikit/core devDependencies -> @verikit/nowhere: @verikit/nowhere is not in the arrow table',
    ]);
  });
});

describe('provider packages', () => {
  it('import no other provider, in package.json or in shipped code; only composition points import one', () => {
    const fromCode = new Map(readPackageImports(root).map((entry) => [entry.name, entry.ours]));
    expect(fromCode.get('@verikit/cli')).toContain('@verikit/termii');
    expect(providerCrossings(manifestEdges(workspaceManifests()), 'depends on')).toEqual([]);
    expect(providerCrossings(fromCode, 'imports')).toEqual([]);
  });

  it('refuses a provider importing another provider', () => {
    const edges = new Map([['@verikit/termii', ['@verikit/provider', '@verikit/provider-utils', '@verikit/gateway']]]);
    expect(providerCrossings(edges, 'imports')).toEqual([
      '@verikit/termii imports @verikit/gateway: a provider package never imports another provider; move what both ' +
        'need to @verikit/provider-utils',
    ]);
  });

  it('refuses a provider in another provider’s devDependencies, and a non-provider depending on a provider', () => {
    const problems = providerCrossings(
      manifestEdges([
        manifest('@verikit/twilio', { devDependencies: { '@verikit/termii': ws } }),
        manifest('@verikit/http', { dependencies: { '@verikit/gateway': ws } }),
        // A binding's tests may run a provider's fake: devDependencies of a non-provider are not edges here.
        manifest('@verikit/redis', { devDependencies: { '@verikit/twilio': ws } }),
      ]),
      'depends on',
    );
    expect(problems).toEqual([
      '@verikit/twilio depends on @verikit/termii: a provider package never imports another provider; move what ' +
        'both need to @verikit/provider-utils',
      '@verikit/http depends on @verikit/gateway: only a composition point (@verikit/cli, @verikit/simulator, examples/*, examples, ' +
        'verikit-monorepo) imports a provider',
    ]);
  });

  it('lets composition points import every provider, and the sandbox the gateway only through its named exception', () => {
    const edges = new Map([
      ['@verikit/cli', ['@verikit/gateway', '@verikit/termii', '@verikit/twilio']],
      ['examples', ['@verikit/gateway', '@verikit/twilio']],
      ['@verikit/sandbox', ['@verikit/gateway']],
    ]);
    expect(providerCrossings(edges, 'imports')).toEqual([]);
    expect(providerCrossings(edges, 'imports', providerPackages, {})).toEqual([
      '@verikit/sandbox imports @verikit/gateway: only a composition point (@verikit/cli, @verikit/simulator, examples/*, examples, ' +
        'verikit-monorepo) imports a provider',
    ]);
    expect(providerCrossings(new Map([['@verikit/sandbox', ['@verikit/termii']]]), 'imports')).toHaveLength(1);
  });
});
