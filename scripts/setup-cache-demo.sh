#!/bin/sh
# Shows the set-up cache on a real repository: Flask, whose set-up
# installs it (editable) and its six dependencies from a local index of
# wheels built here, offline, from their sources (scripts/purewheel.py).
# `capsule doctor --repo` runs what a job runs before its first model
# call: the first run sets up and keeps, the second restores, a changed
# lockfile sets up again, and a small size bound evicts.
#
#   scripts/setup-cache-demo.sh MIRRORS WORKDIR
#
# MIRRORS holds OWNER+NAME/repo clones (bare or not) of pallets/flask,
# werkzeug, jinja, markupsafe, click, itsdangerous, pallets-eco/blinker
# and pypa/flit (for flit_core 3.12.0, Flask's build backend). Nothing is
# downloaded; the sandbox has no network.
set -eu
mirrors=${1:?usage: $0 MIRRORS WORKDIR}
work=${2:?usage: $0 MIRRORS WORKDIR}
here=$(cd "$(dirname "$0")/.." && pwd)
capsule=${CAPSULE:-$here/bin/capsule}

rm -rf "$work"
mkdir -p "$work/src" "$work/flask/wheels"
export_tree() { # OWNER+NAME DEST [REV]
	mkdir -p "$2"
	git -C "$mirrors/$1/repo" archive "${3:-HEAD}" | tar -x -C "$2"
}
export_tree pallets+flask "$work/flask"
for spec in pallets+werkzeug:src/werkzeug pallets+jinja:src/jinja2 pallets+markupsafe:src/markupsafe \
	pallets+click:src/click pallets+itsdangerous:src/itsdangerous pallets-eco+blinker:src/blinker; do
	repo=${spec%%:*}
	export_tree "$repo" "$work/src/$repo"
	python3 "$here/scripts/purewheel.py" "$work/src/$repo" "${spec#*:}" "$work/flask/wheels" >/dev/null
done
export_tree pypa+flit "$work/src/flit" 3.12.0 # Flask asks for flit_core<4
python3 "$here/scripts/purewheel.py" "$work/src/flit/flit_core" flit_core "$work/flask/wheels" >/dev/null
ls "$work/flask/wheels"

mkdir -p "$work/flask/.github"
cat >"$work/flask/.github/capsule.yml" <<'YAML'
setup: pip install --user --pre --no-index --find-links wheels -r requirements.txt -e .
test: python3 -m pytest -q -p no:cacheprovider tests/test_basic.py tests/test_templating.py
timeout: 5m
YAML
printf 'blinker\nclick\nitsdangerous\njinja2\nmarkupsafe\nwerkzeug\n' >"$work/flask/requirements.txt"

export CAPSULE_SETUP_CACHE="$work/cache"
run() {
	echo "== $1"
	start=$(date +%s.%N)
	"$capsule" doctor --repo "$work/flask" | sed -n '/^set-up/,/^baseline/p'
	echo "wall: $(echo "$(date +%s.%N) - $start" | bc) s"
}
run "first job: sets up and keeps"
run "second job, same lockfile: restores"
echo "# pinned" >>"$work/flask/requirements.txt"
run "changed lockfile: sets up again"
size=$(ls -l "$work"/cache/*.tar | awk '{s+=$5} END {print int(s/2)+4096}')
CAPSULE_SETUP_CACHE_MAX_SIZE=$size run "the same, with room for one kept set-up ($size bytes)"
ls -l "$work/cache"
