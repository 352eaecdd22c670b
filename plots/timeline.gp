# Timeline of a training iteration: one row per rank (the first ones of the
# first job), a bar for each compute and each wait for communication of its
# main stream, coloured by what it was.
# `rocesim plot OUTDIR` prepares the data and runs this.
#
# Variables (gnuplot -e):
#   out, term       output file; 'png' (pngcairo when available) or 'svg'
#   name, xmax      scenario name; end of the run (us)
#   rows, more      ranks drawn (r1 .. rN their labels, top to bottom); ranks not drawn
#   bars, nbars     "start_us row end_us kind" lines, kind 0 forward, 1 input
#                   gradient, 2 weight gradient, 3 update, 4 .. 7 waiting for
#                   tp, pp, dp, ep communication
if (!exists("term")) term = 'png'
h = 170 + 22 * (rows > 4 ? rows : 4)
if (term eq 'svg') {
	eval(sprintf("set terminal svg size 1100,%d dynamic noenhanced font 'sans,12' background rgb 'white'", h))
} else {
	if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {
		eval(sprintf("set terminal pngcairo size 1100,%d noenhanced font 'sans,10'", h))
	} else {
		eval(sprintf("set terminal png size 1100,%d noenhanced", h))
	}
}
set output out

set title sprintf('%s: training timeline, compute and waits for communication', name) . \
	(more > 0 ? sprintf(' (%d ranks of %d, evenly spaced)', rows, rows + more) : '') font ',13'
set xlabel 'time (us)'
set xrange [0:xmax]
set yrange [rows - 0.5:-0.5]
set ytics scale 0 ()
do for [i=1:rows] {
	set ytics add (value(sprintf('r%d', i)) i - 1)
}
set grid xtics
set lmargin 12
set key outside bottom center horizontal box opaque
set bmargin 7

array what[8] = ['forward', 'input gradient', 'weight gradient', 'update', \
		 'waiting: tp', 'waiting: pp', 'waiting: dp', 'waiting: ep']
array colour[8] = ['#3070c0', '#50a0e0', '#90c8f0', '#208040', \
		   '#c00000', '#e07000', '#a040a0', '#806000']
if (nbars > 0) {
	plot for [k=0:7] bars using ($4 == k ? ($1 + $3) / 2 : NaN):2:(($3 - $1) / 2):(0.36) \
		with boxxyerror fs solid 0.85 noborder lc rgb colour[k + 1] title what[k + 1]
} else {
	set label 1 'no span recorded' at graph 0.5, 0.5 center
	set yrange [0:1]
	unset ytics
	unset key
	plot NaN notitle
}
