#!/bin/sh
# The manual pages the build makes (docs/man.py): each verb's page has its
# name, its synopsis as `rocesim VERB --help` gives it, and no text line
# troff would read as a request; rocesim-scenario(5) has every key row of
# docs/scenario.md.
# Usage: tests/man_pages.sh BUILD_DIR SOURCE_DIR
set -u
b=$1/docs
src=$2
bad=0
for v in run check sweep tune compare calibrate fluid plot import; do
	f=$b/rocesim-$v.1
	[ -s "$f" ] || { echo "$f: missing"; bad=1; continue; }
	grep -q "^\.TH ROCESIM-$(echo $v | tr a-z A-Z) 1 " "$f" || { echo "$f: no .TH"; bad=1; }
	grep -q "^rocesim-$v \\\\- " "$f" || { echo "$f: no NAME line"; bad=1; }
	grep -q "^usage: rocesim $v " "$f" || { echo "$f: no synopsis of rocesim $v"; bad=1; }
	# a line starting with . or ' is a request: only the page's own macros
	if grep -v '^\.\(TH\|SH\|nf\|fi\|TP\|PP\) \?' "$f" | grep -q "^[.']"; then
		echo "$f: a text line read as a request"
		bad=1
	fi
done
f=$b/rocesim-scenario.5
rows=$(grep -c '^| `' "$src/docs/scenario.md")
tps=$(grep -c '^\.TP$' "$f")
[ "$rows" = "$tps" ] || { echo "$f: $tps keys, docs/scenario.md has $rows rows"; bad=1; }
[ $bad = 0 ] && echo "11 pages, $tps keys in rocesim-scenario(5)"
exit $bad
