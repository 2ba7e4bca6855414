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
# The product module and the tooling module (e2e/, tied by go.work).
[ ${#patterns[@]} -gt 0 ] || patterns=(./... ./e2e/...)

# fuzz_one runs one target. A real finding (a failing input written, a panic)
# fails. A run whose only complaint is "context deadline exceeded" never got past
# gathering baseline coverage within the time (go test -fuzz reports that as a
# FAIL; seen on a cold build cache): it is retried once with twice the time, and
# if it still never fuzzed, that is a warning, not a finding.
fuzz_one() {
	local pkg=$1 target=$2 time=$3 out
	for attempt in 1 2; do
		if out=$(go test -run '^$' -fuzz "^${target}\$" -fuzztime "$time" -fuzzminimizetime "$minimize" "$pkg" 2>&1); then
			printf '%s\n' "$out" | tail -3
			return 0
		fi
		printf '%s\n' "$out" | grep -v '^fuzz: elapsed' | tail -20
		if grep -qE 'Failing input written to|panic:' <<<"$out" || ! grep -q 'context deadline exceeded' <<<"$out"; then
			return 1
		fi
		echo "fuzz.sh: $target stopped at its deadline before fuzzing (no failing input): retrying with more time"
		case $time in *[0-9]s) time=$(( ${time%s} * 2 ))s ;; esac
	done
	echo "fuzz.sh: WARNING: $target never got past gathering baseline coverage in $time; no failing input found"
	return 0
}

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
		if ! fuzz_one "$pkg" "$target" "$fuzztime"; then
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
