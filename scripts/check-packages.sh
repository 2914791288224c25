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
done
exit $status
