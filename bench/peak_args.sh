# peak_args.sh - the arguments of peak_bench.sh and peak_vs_main.sh, sourced (`. FILE`)
# after `here` is set: [-t SECONDS] [--bans "none pytorch"] [GRAPH.json ...] into limit
# (default 60), bans (default both) and the positional parameters (default:
# tests/data/corpus/*.json and bench/corpus/transformer-12l.json). usage_env: what the
# usage line puts before the script's name ("BASE=BIN ").
limit=60
bans="none pytorch"
while [ $# -gt 0 ]; do
	case "$1" in
	-t) limit=$2; shift 2 ;;
	--bans) bans=$2; shift 2 ;;
	-*) echo "usage: ${usage_env:-}$0 [-t SECONDS] [--bans \"none pytorch\"] [GRAPH.json ...]" >&2
	    exit 2 ;;
	*) break ;;
	esac
done
if [ $# -eq 0 ]; then
	set -- "$here"/../tests/data/corpus/*.json "$here"/corpus/transformer-12l.json
fi
