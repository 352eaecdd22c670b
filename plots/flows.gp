# Completion time of every flow of a run, one bar per flow, fastest first.
# `rocesim plot OUTDIR` prepares the data and runs this.
#
# Variables (gnuplot -e):
#   out, term       output file; 'png' (pngcairo when available) or 'svg'
#   name            scenario name
#   data, n         n lines "rank us done \"label\" pct": done is 1 for a flow
#                   that completed (us: its completion time) and 0 for one
#                   that did not (us: how long it ran until the end; pct: the
#                   percentage of its bytes received)
#   ndone           flows that completed
#   labels          1: label each bar with its flow (few flows)
#   p50, p99        FCT percentiles in us (optional)
if (!exists("term")) term = 'png'
if (term eq 'svg') {
	set terminal svg size 1100,600 dynamic noenhanced font 'sans,12' background rgb 'white'
} else {
	if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {
		set terminal pngcairo size 1100,600 noenhanced font 'sans,10'
	} else {
		set terminal png size 1100,600 noenhanced
	}
}
set output out

set title sprintf('%s: flow completion times, %d of %d flows done', name, ndone, n) font ',13'
set ylabel 'flow completion time (us)'
set xlabel (labels ? 'flow (id source->destination), fastest first' : sprintf('the %d flows, fastest first', n))
set grid ytics
set yrange [0:*]
set offsets 0, 0, graph 0.08, 0
set xrange [-0.6:(n > 0 ? n : 1) - 0.4]
set style fill solid 0.8 noborder
set boxwidth 0.8 relative
set key outside bottom center horizontal box opaque
set bmargin (labels ? 10 : 6)
if (labels) {
	set xtics rotate by -45 left scale 0
} else {
	set xtics scale 0
	set format x ''
}

cmd = ''
if (ndone > 0) {
	cmd = "data using 1:($3 == 1 ? $2 : NaN)" . (labels ? ':xticlabels(4)' : '') . " with boxes lc rgb '#3070c0' title 'completed'"
}
if (ndone < n) {
	cmd = cmd . (cmd eq '' ? '' : ', ') . "data using 1:($3 == 0 ? $2 : NaN)" . (labels ? ':xticlabels(4)' : '') . " with boxes lc rgb '#c03030' title 'not done at the end (bar: time it ran)'"
	if (labels) {
		cmd = cmd . ", data using 1:($3 == 0 ? $2 : NaN):(sprintf('%.0f%% received', $5)) with labels offset 0,0.8 notitle"
	}
}
if (exists("p50")) {
	cmd = cmd . (cmd eq '' ? '' : ', ') . sprintf("%g with lines lw 1.5 dt 2 lc rgb '#208020' title 'p50 %g us'", p50, p50)
}
if (exists("p99")) {
	cmd = cmd . (cmd eq '' ? '' : ', ') . sprintf("%g with lines lw 1.5 dt 2 lc rgb '#d08000' title 'p99 %g us'", p99, p99)
}
if (cmd eq '') {
	set label 1 'no flows' at graph 0.5, 0.5 center
	set yrange [0:1]
	cmd = 'NaN notitle'
}
eval('plot ' . cmd)
