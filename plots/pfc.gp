# PFC timeline of a run: one row per port (and priority) that was paused
# or sent a PFC storm, a bar for each interval it was paused.
# `rocesim plot OUTDIR` prepares the data and runs this.
#
# Variables (gnuplot -e):
#   out, term       output file; 'png' (pngcairo when available) or 'svg'
#   name, xmax      scenario name; end of the run (us)
#   rows            number of rows; r1 .. rN their labels, top to bottom
#   more            rows left out (0 when all are shown)
#   prio            the priority, when all rows have the same (optional)
#   bars, nbars     "start_us row end_us" lines: the paused intervals
#   storm, nstorm   "time_us row" lines: PAUSE frames of a PFC storm
#   wd, nwd         "time_us row kind" lines: watchdog trigger (0), restore (1)
if (!exists("term")) term = 'png'
h = 170 + 26 * (rows > 4 ? rows : 4)
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

set title sprintf('%s: PFC timeline, when each port was paused by its peer', name) . \
	(exists('prio') ? sprintf(', priority %s', prio) : '') . \
	(more > 0 ? sprintf(' (first %d ports, %d more)', rows, more) : '') font ',13'
set xlabel 'time (us)'
set xrange [0:xmax]
set yrange [rows - 0.5:-0.5]
set ytics scale 0 ()
do for [i=1:rows] {
	set ytics add (value(sprintf('r%d', i)) i - 1)
}
set grid xtics
set lmargin 24
set key outside bottom center horizontal box opaque
set bmargin 6

cmd = ''
if (nbars > 0) {
	cmd = "bars using 1:2:(0.0):3:($2-0.32):($2+0.32) with boxxyerror fs solid 0.8 noborder lc rgb '#3070c0' title 'paused (PAUSE received: transmission stopped)'"
}
if (nstorm > 0) {
	cmd = cmd . (cmd eq '' ? '' : ', ') . "storm using 1:2 with points pt 2 ps 1 lc rgb '#c00000' title 'PAUSE sent by a PFC storm'"
}
if (nwd > 0) {
	cmd = cmd . (cmd eq '' ? '' : ', ') . "wd using 1:($3 == 0 ? $2 : NaN) with points pt 9 ps 1.8 lc rgb '#e07000' title 'watchdog trigger'"
	cmd = cmd . ", wd using 1:($3 == 1 ? $2 : NaN) with points pt 11 ps 1.8 lc rgb '#209020' title 'watchdog restore'"
}
if (cmd eq '') {
	set label 1 'no port was paused' at graph 0.5, 0.5 center
	set yrange [0:1]
	unset ytics
	unset key
	cmd = 'NaN notitle'
}
eval('plot ' . cmd)
