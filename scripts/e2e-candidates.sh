#!/bin/sh
# Lists the commits of one repository that qualify as cases of the
# end-to-end set (e2e/cases.jsonl), by a rule fixed before any case was
# picked:
#
#   - a commit with one parent (no merge), on the default branch;
#   - its message says it fixes something: "fix" (any case) or an issue
#     or pull request reference "#NNN";
#   - it changes 1 to 3 Python files outside the tests (not under a
#     test/ or tests/ directory, not named test_*.py, *_test.py or
#     conftest.py), and adds or changes at least one test file
#     (test_*.py or *_test.py);
#   - it touches nothing else but documentation and changelog files
#     (*.rst, *.md, *.txt, CHANGES*, docs/).
#
#   scripts/e2e-candidates.sh GIT_DIR [SINCE]
#
# prints one line per commit, newest first: commit, parent, the "#NNN"
# references, the non-test files, the test files and the subject, tab-
# separated. SINCE (default 2019-01-01) keeps the base commits recent
# enough to run on Debian bookworm's python3 3.11 and pytest 7.2.1.
# Cases are then taken from this list in order, skipping a commit when its
# base does not run in the sandbox image, its new test does not fail at
# the base, or its fix does not make that test pass.
set -eu

gitdir=${1:?usage: $0 GIT_DIR [SINCE]}
since=${2:-2019-01-01}
head=$(git --git-dir "$gitdir" symbolic-ref --quiet HEAD 2>/dev/null || echo HEAD)

git --git-dir "$gitdir" log --no-merges --first-parent --since "$since" --format='%H %P' "$head" |
while read -r commit parent rest; do
	[ -n "$parent" ] && [ -z "$rest" ] || continue
	subject=$(git --git-dir "$gitdir" log -1 --format=%s "$commit")
	message=$(git --git-dir "$gitdir" log -1 --format=%B "$commit")
	refs=$(printf '%s\n' "$message" | grep -o '#[0-9][0-9]*' | sort -u | tr '\n' ' ' | sed 's/ $//')
	if ! printf '%s\n' "$message" | grep -qi 'fix' && [ -z "$refs" ]; then
		continue
	fi
	code="" tests="" other=0
	for f in $(git --git-dir "$gitdir" diff-tree --no-commit-id --name-only -r "$parent" "$commit"); do
		base=${f##*/}
		case "$f" in
		*.py)
			case "/$f" in
			*/test/* | */tests/* | */testing/* | */test_*.py | *_test.py | */conftest.py)
				case "$base" in
				test_*.py | *_test.py) tests="$tests $f" ;;
				conftest.py) ;;
				*) other=1 ;;
				esac
				;;
			*) code="$code $f" ;;
			esac
			;;
		*.rst | *.md | *.txt | CHANGES* | CHANGELOG* | HISTORY* | docs/* | doc/*) ;;
		*) other=1 ;;
		esac
	done
	n=$(echo $code | wc -w)
	[ "$other" = 0 ] && [ "$n" -ge 1 ] && [ "$n" -le 3 ] && [ -n "$tests" ] || continue
	printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$commit" "$parent" "$refs" "$(echo $code)" "$(echo $tests)" "$subject"
done
