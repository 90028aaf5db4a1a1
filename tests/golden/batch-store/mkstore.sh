#!/bin/sh
# mkstore.sh DIR ARGS... - a partition store for the batch golden cases, made at test time
# (the 64-digit file names do not fit the release tarball's path limit): the seed graph
# (or $GRAPH),
# the seed policy, and one entry per ARGS, a JSON array of solve options in which @POLICY@
# stands for the stored policy. Keys are computed as ilpart.store computes them.
set -eu
top=$(cd "$(dirname "$0")/../../.." && pwd)
dir=$1
shift
mkdir -p "$dir/graphs" "$dir/policies" "$dir/entries"
graph=${GRAPH:-$top/examples/seed_float8_sac.json}
fp=$("$ILPART" info "$graph" | sed -n 's/^fingerprint: //p')
nodes=$("$ILPART" info "$graph" | sed -n '1s/.*: \([0-9]*\) nodes:.*/\1/p')
cp "$graph" "$dir/graphs/$fp.json"
pol=$(sha256sum "$top/examples/policies/seed_mm_only.json" | cut -c1-64)
cp "$top/examples/policies/seed_mm_only.json" "$dir/policies/$pol.json"
chmod -R u+w "$dir"
for args in "$@"; do
	args=$(printf '%s' "$args" | sed "s|@POLICY@|policies/$pol.json|")
	key=$(printf '{"args":%s,"fingerprint":"%s"}' "$args" "$fp" | sha256sum | cut -c1-64)
	printf '{"format": "ilpart-store-entry", "version": 1, "fingerprint": "%s", "graph": "graphs/%s.json", "nodes": %s, "args": %s}\n' \
	    "$fp" "$fp" "$nodes" "$args" >"$dir/entries/$key.json"
done
