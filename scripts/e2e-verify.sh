#!/bin/sh
# Checks the cases of e2e/cases.jsonl outside Capsule, in the sandbox
# image with no network, as the end-to-end set requires of each case:
#
#   base   the real test (the case's test_capsule_*.py) fails (pytest's exit
#          status 1, or 2 when it cannot import a name the fix adds);
#   right  with fix.diff it passes, and so does the area's command;
#   wrong  with wrong.diff it fails, and the area's command passes;
#   noop   with noop.diff it fails.
#
#   scripts/e2e-verify.sh MIRRORS [ID...]
#
# MIRRORS is the folder scripts/e2e-repos.sh made (OWNER/NAME.git);
# CAPSULE_E2E_IMAGE the image (default capsule-python:0.1.0-dev). Prints
# one line per case and exits 1 when any check fails. Needs git, jq and
# docker.
set -eu

mirrors=${1:?usage: $0 MIRRORS [ID...]}
shift
here=$(cd "$(dirname "$0")/.." && pwd)
cases=$here/e2e/cases.jsonl
img=${CAPSULE_E2E_IMAGE:-capsule-python:0.1.0-dev}
ids=${*:-$(jq -r .id "$cases")}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# run DIR CMD: the command's exit status in the image, as the sandbox user
# (124 when it runs for more than 10 minutes).
run() {
	chmod -R a+rwX "$1"
	docker run --rm --network none --user 10001:10001 -v "$1:/w" -w /w "$img" timeout 600 sh -c "$2" >"$work/out" 2>&1 && return 0 || return $?
}

status=0
for id in $ids; do
	c=$(jq -c "select(.id == \"$id\")" "$cases")
	repo=$(echo "$c" | jq -r .repo) base=$(echo "$c" | jq -r .base)
	prefix=$(echo "$c" | jq -r .run) area=$(echo "$c" | jq -r .area) test=$(echo "$c" | jq -r .test_file)
	dir=$here/e2e/cases/$id
	line="$id:"
	for mode in base right wrong noop; do
		tree=$work/$mode
		rm -rf "$tree" && mkdir -p "$tree"
		git --git-dir "$mirrors/$repo.git" archive "$base" | tar -x -C "$tree"
		patch=
		case $mode in
		right) patch=fix.diff ;;
		wrong) patch=wrong.diff ;;
		noop) patch=noop.diff ;;
		esac
		if [ -n "$patch" ] && ! git -C "$tree" apply "$dir/$patch"; then
			line="$line $mode: $patch does not apply"
			status=1
			continue
		fi
		cp "$dir/test.py" "$tree/$test"
		t=0 && run "$tree" "$prefix $test" || t=$?
		ok=yes
		case $mode in
		right) [ $t = 0 ] || ok=no ;;
		*) [ $t = 1 ] || [ $t = 2 ] || ok=no ;; # failed, or an error such as a name the fix adds
		esac
		if [ $mode = right ] || [ $mode = wrong ]; then
			rm "$tree/$test"
			a=0 && run "$tree" "$prefix $area" || a=$?
			[ $a = 0 ] || ok=no
			line="$line $mode(test exit $t, area exit $a): $ok"
		else
			line="$line $mode(test exit $t): $ok"
		fi
		[ $ok = yes ] || status=1
	done
	echo "$line"
done
exit $status
