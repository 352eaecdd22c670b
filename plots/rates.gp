# DCQCN reaction of a run's queue pairs: current rate Rc, target rate Rt
# and alpha over time, for up to 8 QPs. `rocesim plot OUTDIR` prepares the
# data and runs this.
#
# Variables (gnuplot -e):
#   out, term       output file; 'png' (pngcairo when available) or 'svg'
#   name, xmax      scenario name; end of the run (us)
#   n               number of QPs; t1 .. tN their titles
#   rc, rt, alpha   files of n blocks of "time_us value" lines (Rc and Rt in
#                   Gb/s), one per QP, apart by two blank lines
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

kw = 16
do for [i=1:n] {
	kw = strlen(value(sprintf('t%d', i))) > kw ? strlen(value(sprintf('t%d', i))) : kw
}

set multiplot layout 2,1 title sprintf('%s: DCQCN rate control of ', name) . \
	(n > 0 ? sprintf('%d QP%s', n, n == 1 ? '' : 's') : 'the QPs') . \
	(more > 0 ? sprintf(' (the first %d; %d more not shown)', n, more) : '') font ',13'
set grid
set xrange [0:xmax]
set xlabel 'time (us)'
set key outside right top box opaque
set lmargin 12
set rmargin kw + 10
set offsets 0, 0, graph 0.05, 0

set title 'sending rate: solid Rc (current rate), dashed Rt (target rate)'
set ylabel 'rate (Gb/s)'
set yrange [0:*]
if (n > 0) {
	plot for [i=1:n] rc index (i-1) using 1:2 with steps lw 2 lc i title value(sprintf('t%d', i)), \
	     for [i=1:n] rt index (i-1) using 1:2 with steps lw 1.5 dt 2 lc i notitle
} else {
	set label 1 'no QP reacted to congestion (no CNP)' at graph 0.5, 0.5 center
	set yrange [0:1]
	unset key
	plot NaN notitle
}

set title 'alpha: the congestion estimate (1 = every recent update saw a CNP)'
set ylabel 'alpha'
set yrange [0:1]
if (n > 0) {
	plot for [i=1:n] alpha index (i-1) using 1:2 with steps lw 2 lc i title value(sprintf('t%d', i))
} else {
	plot NaN notitle
}
unset multiplot
