# FCT slowdown against flow size: per size bucket of summary.fct_slowdown,
# the p50, p95 and p99 of FCT / ideal FCT, the flow size on a log axis.
# `rocesim plot OUTDIR` prepares the data and runs this.
#
# Variables (gnuplot -e):
#   out, term       output file; 'png' (pngcairo when available) or 'svg'
#   name            scenario name
#   data, n         n lines "x p50 p95 p99 flows \"bucket\"": x the median
#                   size of the bucket's finished flows in bytes (the middle
#                   of its bounds when results.json lists none of them)
#   nflows          the finished flows of all buckets
#   xlo, xhi        the size axis, whole decades (bytes)
#   xticks          '"10 KB" 10000, ...': a tick at each decade, in its unit
#   bounds          the bounds between buckets, '10000 100000 ...' (dashed)
#   logy, ylo, yhi  1: slowdown on a log scale from ylo; yhi the largest value
#   load            the offered load of the poisson workloads, % (optional)
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

title = sprintf('%s: FCT slowdown by flow size, %d flows', name, nflows)
if (exists("load")) {
	title = title . sprintf(', offered load %.2f%%', load)
}
set title title font ',13'
set xlabel 'flow size (each bucket at the median size of its flows; dashed: the bounds between buckets)'
set ylabel 'FCT / ideal FCT (the flow alone on an empty path)'
set logscale x
set xrange [xlo:xhi]
eval('set xtics ('.xticks.')')
set grid ytics
if (logy) {
	set logscale y
	set yrange [ylo:yhi * 3]
} else {
	set yrange [0:yhi * 1.25]
}
set key top right box opaque width 2 spacing 1.2
set pointsize 1.3

do for [i = 1:words(bounds)] {
	b = word(bounds, i) + 0.0
	set arrow from b, graph 0 to b, graph 1 nohead dt 2 lc rgb '#808080'
}

plot data using 1:2 with linespoints lw 2 pt 7 lc rgb '#3070c0' title 'p50', \
     data using 1:3 with linespoints lw 2 pt 5 lc rgb '#d08000' title 'p95', \
     data using 1:4 with linespoints lw 2 pt 9 lc rgb '#c03030' title 'p99', \
     data using 1:4:(sprintf("%s: %d flows", stringcolumn(6), $5)) with labels offset 0,1.2 notitle
