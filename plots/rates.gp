# DCQCN reaction of a run's queue pairs: current rate Rc, target rate Rt
# and alpha over time for up to 8 QPs; prepared by `rocesim plot OUTDIR`.
#
# Variables (gnuplot -e):
#   out, term       output file; 'png' (pngcairo when available) or 'svg'
#   name, xmax      scenario name; end of the run (us)
#   data, n         blocks of (time_us rc_gbps rt_gbps alpha), one per QP,
#                   separated by two blank lines; n blocks
#   t1 .. tN        title of each QP
#   more            QPs with DCQCN samples left out
if (!exists("term")) term = 'png'
if (term eq 'svg') {
	set terminal svg size 1100,800 dynamic noenhanced font 'sans,12' background rgb 'white'
} else {
	if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {
		set terminal pngcairo size 1100,800 noenhanced font 'sans,10'
	} else {
		set terminal png size 1100,800 noenhanced
	}
}
set output out

set multiplot layout 2,1 title sprintf('%s: DCQCN of %d QPs', name, n) . \
	(more > 0 ? sprintf(' (the first %d, %d more)', n, more) : '') font ',13'
set grid
set xrange [0:xmax]
set xlabel 'time (us)'
set key outside right top box opaque
set lmargin 12
set rmargin 30

set title 'sending rate: solid Rc (current), dashed Rt (target)'
set ylabel 'rate (Gb/s)'
set yrange [0:*]
if (n > 0) {
	plot for [i=1:n] data index (i-1) using 1:2 with steps lw 2 lc i title value(sprintf('t%d', i)), \
	     for [i=1:n] data index (i-1) using 1:3 with steps lw 1 dt 2 lc i notitle
} else {
	set label 1 'no QP reacted to congestion (no CNP)' at graph 0.5, 0.5 center
	set yrange [0:1]
	plot NaN notitle
}

set title 'alpha (congestion estimate; 1 = every recent window marked)'
set ylabel 'alpha'
set yrange [0:1.05]
if (n > 0) {
	plot for [i=1:n] data index (i-1) using 1:4 with steps lw 2 lc i title value(sprintf('t%d', i))
} else {
	plot NaN notitle
}
unset multiplot
