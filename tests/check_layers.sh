#!/bin/sh
# The layers, bottom up: a file may include headers of its own folder and of
# the folders below it, never above. Also: no include cycle among the model
# files, and no file of product code over 900 lines (split it by concern).
# Usage: tests/check_layers.sh [SOURCE_ROOT]
set -u
cd "${1:-.}" || exit 2
order="sim/engine topologies models sim/config sim/run sim/cli"
rank() {
	i=0
	for l in $order; do
		[ "$l" = "$1" ] && { echo $i; return; }
		i=$((i + 1))
	done
	echo -1
}
bad=0
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
for layer in $order; do
	mine=$(rank "$layer")
	for f in "$layer"/*.[ch]; do
		grep -o '^#include "[^"]*"' "$f" | sed 's/#include "\(.*\)"/\1/' | while read -r h; do
			dir=$(dirname "$h")
			theirs=$(rank "$dir")
			if [ "$theirs" -lt 0 ]; then
				echo "$f: includes \"$h\": not written from the repository root"
			elif [ "$theirs" -gt "$mine" ]; then
				echo "$f: includes \"$h\": $dir is above $layer"
			fi
		done
	done
done >"$tmp/layers"
if [ -s "$tmp/layers" ]; then
	cat "$tmp/layers"
	bad=1
fi
# cycles among the model files (a .c counts as its header)
for f in models/*.[ch]; do
	me="models/$(basename "$f" .c)"
	me="${me%.h}"
	grep -o '^#include "models/[^"]*"' "$f" | sed 's/#include "\(.*\)\.h"/\1/' |
		while read -r h; do [ "$h" != "$me" ] && echo "$me $h"; done
done | tsort >/dev/null 2>"$tmp/tsort"
if [ -s "$tmp/tsort" ]; then
	echo "include cycle among the models:"
	cat "$tmp/tsort"
	bad=1
fi
for layer in $order; do
	for f in "$layer"/*.[ch]; do
		n=$(wc -l <"$f")
		if [ "$n" -gt 900 ]; then
			echo "$f: $n lines, over 900: split it by concern"
			bad=1
		fi
	done
done
exit $bad
