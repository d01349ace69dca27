#!/bin/sh
# Makes the folder of clones BenchmarkLocalization (or, with "holdout",
# BenchmarkHoldout) reads: one bare clone, OWNER/NAME.git, of every
# repository in the case list.
#
#   scripts/localization-repos.sh DIR [holdout]
#   CAPSULE_LOCALIZATION_REPOS=DIR go test -run '^$' -bench Localization -benchtime 1x ./pipeline/repocontext/
#   CAPSULE_LOCALIZATION_REPOS=DIR go test -run '^$' -bench Holdout -benchtime 1x ./pipeline/repocontext/
#
# CAPSULE_LOCALIZATION_SOURCE is where the repositories are cloned from,
# https://github.com by default (a folder holding OWNER/NAME clones works
# too). A clone already in DIR is fetched again instead.
set -eu

dir=${1:?usage: $0 DIR [holdout]}
source=${CAPSULE_LOCALIZATION_SOURCE:-https://github.com}
list=localization
[ "${2:-}" = holdout ] && list=holdout
cases=$(dirname "$0")/../pipeline/repocontext/testdata/$list/cases.jsonl

mkdir -p "$dir"
for repo in $(sed -n 's/^{"repo": *"\([^"]*\)".*/\1/p' "$cases" | sort -u); do
	if [ -d "$dir/$repo.git" ]; then
		git --git-dir "$dir/$repo.git" fetch --quiet origin '+refs/heads/*:refs/heads/*'
	else
		git clone --quiet --bare "$source/$repo" "$dir/$repo.git"
	fi
	echo "$dir/$repo.git"
done
