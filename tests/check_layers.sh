#!/bin/sh
# The layers, bottom up: a file may include headers of its own folder and of
# the folders below it, never above. Also: no include cycle among the files
# of one folder, no file of product code over 900 lines (split it by concern), and
# no function of the command line over 80 lines.
# Usage: tests/check_layers.sh [SOURCE_ROOT]
set -u
cd "${1:-.}" || exit 2
order="sim/engine topologies models sim/readers sim/config sim/run sim/lint sim/study sim/plot sim/api sim/cli"
bad=0
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
# one pass of awk over every include line (a process per line is slow on a
# loaded machine)
for layer in $order; do
	grep -H -o '^#include "[^"]*"' "$layer"/*.[ch]
done | awk -v order="$order" '
BEGIN { n = split(order, l, " "); for (i = 1; i <= n; i++) rank[l[i]] = i }
{
	f = $0; sub(/:#include .*/, "", f)
	h = $0; sub(/^[^:]*:#include "/, "", h); sub(/"$/, "", h)
	mine = f; sub(/\/[^\/]*$/, "", mine)
	dir = h; if (dir ~ /\//) sub(/\/[^\/]*$/, "", dir); else dir = "."
	if (!(dir in rank))
		printf "%s: includes \"%s\": not written from the repository root\n", f, h
	else if (rank[dir] > rank[mine])
		printf "%s: includes \"%s\": %s is above %s\n", f, h, dir, mine
}' >"$tmp/layers"
if [ -s "$tmp/layers" ]; then
	cat "$tmp/layers"
	bad=1
fi
# include cycles among the files of one folder (a .c counts as its header,
# and X_impl.h, X's insides shared by its files, as X)
for layer in $order; do
	for f in "$layer"/*.[ch]; do
		me="$layer/$(basename "$f" .c)"
		me="${me%.h}"
		me="${me%_impl}"
		grep -o "^#include \"$layer/[^/\"]*\"" "$f" | sed 's/#include "\(.*\)\.h"/\1/; s/_impl$//' |
			while read -r h; do [ "$h" != "$me" ] && echo "$me $h"; done
	done | tsort >/dev/null 2>"$tmp/tsort"
	if [ -s "$tmp/tsort" ]; then
		echo "include cycle in $layer:"
		sed -n 's/^tsort: \([^ ]*\)$/  \1/p' "$tmp/tsort" | sort -u
		bad=1
	fi
done
for layer in $order; do
	wc -l "$layer"/*.[ch]
done | awk '$2 != "total" && $1 > 900 { printf "%s: %d lines, over 900: split it by concern\n", $2, $1; bad = 1 }
END { exit bad }' || bad=1
# the command line parses options and prints: no function of it over 80
# lines (a function starts at a line that opens with its type, ends at a
# line that is a lone closing brace)
for f in sim/cli/*.c; do
	awk -v f="$f" '/^[a-z].*\(/ && !/;$/ { name = $0; start = NR }
/^}/ && start { if (NR - start > 80) printf "%s:%d: %d lines, over 80: split it\n", f, start, NR - start; start = 0 }' "$f"
done >"$tmp/long"
if [ -s "$tmp/long" ]; then
	cat "$tmp/long"
	bad=1
fi
exit $bad
