#!/bin/sh
# Makes the folder of clones the end-to-end set reads: one bare clone,
# OWNER/NAME.git, of every repository in e2e/cases.jsonl.
#
#   scripts/e2e-repos.sh DIR
#   make e2e E2E_REPOS=DIR
#
# CAPSULE_E2E_SOURCE is where the repositories are cloned from,
# https://github.com by default (a folder holding OWNER/NAME clones works
# too). A clone already in DIR is fetched again instead.
set -eu

dir=${1:?usage: $0 DIR}
source=${CAPSULE_E2E_SOURCE:-https://github.com}
cases=$(dirname "$0")/../e2e/cases.jsonl

mkdir -p "$dir"
for repo in $(sed -n 's/.*"repo": *"\([^"]*\)".*/\1/p' "$cases" | sort -u); do
	if [ -d "$dir/$repo.git" ]; then
		git --git-dir "$dir/$repo.git" fetch --quiet origin '+refs/heads/*:refs/heads/*'
	else
		git clone --quiet --bare "$source/$repo" "$dir/$repo.git"
	fi
	echo "$dir/$repo.git"
done
