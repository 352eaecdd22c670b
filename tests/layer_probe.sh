#!/bin/sh
# The layers are held by the linker: every layer's objects are also linked
# alone as a shared library with --no-undefined against only the layers
# below it (layer_*.so, built before this test), so that a call from a
# layer to one above it fails to link. This probe proves the mechanism: an
# object of the engine's that calls port_start() (models/link.c) must not
# link against the engine's library alone, and must link once the models'
# library is given too.
# Usage: tests/layer_probe.sh BUILD_DIR CC [CC_ARGS...]
set -u
build=$1
shift
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/probe.c" <<'C'
struct port;
void port_start(struct port *p);
void probe(struct port *p);
void probe(struct port *p) { port_start(p); }
C
for lib in engine topologies models config run; do
	f=$(find "$build" -name "liblayer_$lib.so" | head -n 1)
	[ -n "$f" ] || { echo "liblayer_$lib.so not built under $build"; exit 1; }
	eval "so_$lib=\$f"
done
"$@" -fPIC -c "$tmp/probe.c" -o "$tmp/probe.o" || exit 2
# shellcheck disable=SC2154
if "$@" -shared -Wl,--no-undefined -o "$tmp/up.so" "$tmp/probe.o" "$so_engine" \
	2>"$tmp/err"; then
	echo "an engine object calling a model linked against the engine alone"
	exit 1
fi
grep -q "undefined reference to .port_start" "$tmp/err" || {
	echo "the link failed, but not on the upward call:"
	cat "$tmp/err"
	exit 1
}
# shellcheck disable=SC2154
if ! "$@" -shared -Wl,--no-undefined -o "$tmp/ok.so" "$tmp/probe.o" "$so_models" \
	"$so_topologies" "$so_engine" 2>"$tmp/err"; then
	echo "the probe does not link with the models' library given:"
	cat "$tmp/err"
	exit 1
fi
echo "an upward call fails to link; the same call links from above"
