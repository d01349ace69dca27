#!/bin/sh
# Lays out the root file system of Capsule's images:
#
#   scripts/rootfs.sh BINARY CA_BUNDLE OUTDIR
#
# writes OUTDIR/capsule (BINARY, a static build), OUTDIR/etc/passwd and
# OUTDIR/etc/group (root and the non-root user capsule, 65532:65532),
# OUTDIR/etc/ssl/certs/ca-certificates.crt (CA_BUNDLE) and OUTDIR/tmp (1777).
# Every image copies OUTDIR to /, so this is the one place the layout is
# written: the Dockerfile's build stage, Dockerfile.action and
# make docker-image all call it. OUTDIR must not exist or be empty, so
# nothing stale gets into an image. The modes are set explicitly, whatever
# the umask; COPY makes the owner root.
#
# POSIX sh and utilities only: it runs in the Go image (busybox) as well as
# on the developer's machine.
set -eu

if [ "$#" -ne 3 ]; then
	echo "usage: $0 BINARY CA_BUNDLE OUTDIR" >&2
	exit 2
fi
binary=$1
ca_bundle=$2
out=$3

for f in "$binary" "$ca_bundle"; do
	if [ ! -f "$f" ] || [ ! -r "$f" ]; then
		echo "$0: $f is not a readable file" >&2
		exit 1
	fi
done
if [ -e "$out" ] && [ -n "$(ls -A "$out")" ]; then
	echo "$0: $out exists and is not empty" >&2
	exit 1
fi

mkdir -p "$out/etc/ssl/certs" "$out/tmp"
chmod 0755 "$out" "$out/etc" "$out/etc/ssl" "$out/etc/ssl/certs"
chmod 1777 "$out/tmp"

cp "$binary" "$out/capsule"
chmod 0755 "$out/capsule"
cp "$ca_bundle" "$out/etc/ssl/certs/ca-certificates.crt"

# The user is numeric in the images (USER 65532:65532), so the engine never
# looks it up; these files name it for tools such as ps.
printf '%s\n' 'root:x:0:0:root:/root:/sbin/nologin' 'capsule:x:65532:65532:capsule:/nonexistent:/sbin/nologin' >"$out/etc/passwd"
printf '%s\n' 'root:x:0:' 'capsule:x:65532:' >"$out/etc/group"
chmod 0644 "$out/etc/passwd" "$out/etc/group" "$out/etc/ssl/certs/ca-certificates.crt"
