#!/usr/bin/env bash
# Checks every publishable package as a registry would see it: builds them (turbo), then runs publint and
# are-the-types-wrong (esm-only profile: verikit ships ESM only, Node >= 20.19) on each packed package.
set -euo pipefail
cd "$(dirname "$0")/.."
# The built dist/ folders would change what the CLI bin and other tools run afterwards: leave none behind.
trap 'rm -rf packages/*/dist' EXIT
pnpm build >/dev/null
status=0
for dir in packages/*/; do
  name=$(node -p "require('./${dir}package.json').name")
  private=$(node -p "Boolean(require('./${dir}package.json').private)")
  [ "$private" = true ] && continue
  echo "== $name"
  (cd "$dir" && pnpm exec publint --strict --level warning) || status=1
  (cd "$dir" && pnpm exec attw --pack . --profile esm-only --format ascii --quiet) || status=1
  # docs/migration.md sends users to the changelog: a package that has one ships it.
  if [ -f "${dir}CHANGELOG.md" ] && ! (cd "$dir" && npm pack --dry-run --json 2>/dev/null | grep -q '"path": "CHANGELOG.md"'); then
    echo "$name: CHANGELOG.md is not in the packed files (add it to \"files\")"
    status=1
  fi
done
exit $status
