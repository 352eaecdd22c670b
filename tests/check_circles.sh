#!/bin/sh
# No circle of files inside one folder, as the linker sees it: in the
# archives of each folder (the folder of the archive), an object file that
# uses a symbol another defines depends on it, and those dependencies must
# run one way (tsort finds no loop). Includes are check_layers.sh's.
# Usage: tests/check_circles.sh ARCHIVE...
set -u
bad=0
for dir in $(for a in "$@"; do dirname "$a"; done | sort -u); do
	archives=""
	for a in "$@"; do
		[ "$(dirname "$a")" = "$dir" ] && archives="$archives $a"
	done
	# shellcheck disable=SC2086 # one word per archive
	loop=$(nm -A $archives | awk '
	# ARCHIVE:MEMBER:ADDRESS TYPE SYMBOL, the address empty when undefined
	NF == 3 { split($1, p, ":"); obj = p[2]; sub(/^.*\//, "", obj); objs[obj] = 1 }
	NF == 3 && $2 ~ /^[TDBRC]$/ { def[$3] = obj }
	NF == 3 && $2 == "U" { use[obj, $3] = 1 }
	END {
		for (o in objs) print o, o
		for (k in use) { split(k, q, SUBSEP); if ((q[2] in def) && def[q[2]] != q[1]) print q[1], def[q[2]] }
	}' | tsort 2>&1 >/dev/null)
	if [ -n "$loop" ]; then
		echo "${dir#"${MESON_BUILD_ROOT:-}"}: files that use each other:"
		echo "$loop" | sed -n 's/^tsort: \([^ ]*\.o\)$/  \1/p' | sort -u
		bad=1
	fi
done
exit $bad
