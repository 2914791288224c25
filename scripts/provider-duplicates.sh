#!/usr/bin/env bash
# Counts the code two provider packages share (issue 30; docs/providers/README.md, "Checking for shared code"): the
# `duplicates` tool run over a copy of the provider packages' src (a git repository of its own, so nothing else
# in the checkout is read), keeping the rows whose two sides are in different packages. A pair of two fakes' lists
# of magic behaviours (`src/fake/*-magic-numbers.ts`: which failures each fake offers and what each does) is their
# scripted data, which issue 30 leaves out: listed apart, not counted. Prints the rows and `cross-provider pairs: N`;
# exits 1 when N > 0, 2 when the tool is missing or did not read everything.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
command -v duplicates >/dev/null || { echo 'provider-duplicates: the duplicates tool is not on PATH' >&2; exit 2; }
copy="$(mktemp -d)"
trap 'rm -rf "$copy"' EXIT
for package in gateway termii twilio africastalking dojah smile-id; do
  mkdir -p "$copy/packages/$package"
  cp -R "$root/packages/$package/src" "$copy/packages/$package/src"
done
git -C "$copy" init -q
git -C "$copy" add -A
git -C "$copy" -c user.name=check -c user.email=check@localhost commit -qm copy
report="$(duplicates --repo "$copy" --most 200 --seconds 120)"
if grep -q '^incomplete:' <<<"$report"; then echo "$report" >&2; exit 2; fi
# A row: `D1 packages/a/src/x.ts:1-9 ~ packages/b/src/y.ts:3-11 …`; cross-provider when a differs from b.
cross="$(awk '$1 ~ /^D[0-9]+$/ { split($2, left, "/"); split($4, right, "/"); if (left[2] != right[2]) print }' <<<"$report")"
scripted='src/fake/[^/ ]*-magic-numbers\.ts:[0-9-]+ ~ [^ ]*/src/fake/[^/ ]*-magic-numbers\.ts:'
rows="$(grep -Ev "$scripted" <<<"$cross" || true)"
data="$(grep -E "$scripted" <<<"$cross" || true)"
count=$(grep -c . <<<"$rows" || true)
[ -n "$data" ] && sed 's/^/scripted data, not counted: /' <<<"$data"
[ -n "$rows" ] && echo "$rows"
echo "cross-provider pairs: $count"
[ "$count" -eq 0 ]
