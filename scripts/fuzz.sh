#!/usr/bin/env bash
# Runs every Go fuzz target (func Fuzz*) in the module for ${FUZZTIME:-20s} each and
# fails if any finds a crasher. Targets are discovered, not listed here: a new
# Fuzz* function is picked up by the next run.
#
#   scripts/fuzz.sh                 # every package
#   FUZZTIME=2m scripts/fuzz.sh ./pkg/...
#
# A crasher is written by `go test` to <package>/testdata/fuzz/<Target>/<hash>;
# commit it and it runs as a regression case in every plain `go test` from then on.
# FUZZMINIMIZETIME bounds how long each new input is minimised (slow targets such
# as inject would otherwise spend the whole run shrinking one large manifest).
set -euo pipefail
cd "$(dirname "$0")/.."

fuzztime=${FUZZTIME:-20s}
minimize=${FUZZMINIMIZETIME:-10s}
patterns=("$@")
[ ${#patterns[@]} -gt 0 ] || patterns=(./...)

failed=()
ran=0
for pkg in $(go list "${patterns[@]}"); do
	if ! listing=$(go test -list '^Fuzz' "$pkg" 2>&1); then
		echo "fuzz.sh: cannot list the tests of $pkg:" >&2
		echo "$listing" >&2
		failed+=("$pkg (does not build)")
		continue
	fi
	for target in $(grep -E '^Fuzz[A-Za-z0-9_]*$' <<<"$listing" || true); do
		echo "== $pkg $target ($fuzztime)"
		ran=$((ran + 1))
		if ! go test -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" -fuzzminimizetime "$minimize" "$pkg"; then
			failed+=("$pkg $target")
		fi
	done
done

echo "fuzz.sh: $ran target(s), ${#failed[@]} failed"
if [ ${#failed[@]} -gt 0 ]; then
	printf '  FAIL %s\n' "${failed[@]}"
	exit 1
fi
if [ "$ran" -eq 0 ]; then
	echo "fuzz.sh: no Fuzz* target found" >&2
	exit 1
fi
