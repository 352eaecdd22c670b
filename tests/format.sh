#!/bin/sh
# Every C file of the tree is laid out as .clang-format says (the Linux
# kernel's coding style, as the code is written): clang-format --dry-run
# --Werror on each, the files that differ listed with the first lines that
# would change. Skipped (exit 77) where clang-format is not installed: it is
# not a build dependency, and a machine without it has nothing to check
# with. To lay out what you changed: `git clang-format`; the whole tree:
# `clang-format -i` on the files this lists.
# Usage: tests/format.sh [SOURCE_ROOT]
set -u
cd "${1:-.}" || exit 2
cf=${CLANG_FORMAT:-}
if [ -z "$cf" ]; then
	for c in clang-format clang-format-14 clang-format-15 clang-format-16; do
		if command -v "$c" >/dev/null 2>&1; then
			cf=$c
			break
		fi
	done
fi
if [ -z "$cf" ]; then
	echo "format: clang-format not installed: skipped"
	exit 77
fi
files=$(find sim topologies models tests experiments -name '*.[ch]' | sort)
n=$(echo "$files" | wc -l)
bad=0
# one process for the whole tree; file by file only to name what differs
# shellcheck disable=SC2086
if ! "$cf" --dry-run --Werror $files >/dev/null 2>&1; then
	for f in $files; do
		if ! "$cf" --dry-run --Werror "$f" >/dev/null 2>&1; then
			echo "$f: not laid out as .clang-format says; first changes:"
			"$cf" "$f" | diff "$f" - | head -n 8
			bad=$((bad + 1))
		fi
	done
fi
echo "format: $n files checked with $("$cf" --version | head -n 1), $bad to lay out"
[ "$bad" -eq 0 ]
