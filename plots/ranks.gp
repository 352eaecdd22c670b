# Collective progress per rank: when each rank of a collective had received
# all its data in the last iteration, one bar per rank, with the time that
# iteration took; one panel per collective (up to 4). `rocesim plot OUTDIR`
# prepares the data and runs this.
#
# Variables (gnuplot -e):
#   out, term       output file; 'png' (pngcairo when available) or 'svg'
#   name            scenario name
#   data            n blocks of lines "rank us done last", one block per
#                   collective, apart by two blank lines: done is 1 for a
#                   rank that had all its data (us: when, from the start of
#                   the iteration) and 0 for one that never did (us: 0); last
#                   is 1 for the ranks that had it last (0 for every rank when
#                   they differ by less than 1%)
#   n, more         collectives drawn (one panel each); collectives left out
#   tI, rI          title of panel I (op, size, ranks, busbw); its ranks
#   yI              where the y axis starts, when not at 0 (ranks close
#                   together: the differences would not show from 0)
#   btI             key title of the bars
#   nnI             ranks of collective I that never had all their data
#   slI             key title of the last ranks (absent when none is marked)
#   lI, llI         the time the iteration took (us) and its key title
#                   (absent when the iteration did not complete)
if (!exists("term")) term = 'png'
height = n > 1 ? 120 + 380 * n : 600
if (term eq 'svg') {
	set terminal svg size 1100,height dynamic noenhanced font 'sans,12' background rgb 'white'
} else {
	if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {
		set terminal pngcairo size 1100,height noenhanced font 'sans,10'
	} else {
		set terminal png size 1100,height noenhanced
	}
}
set output out

set multiplot layout n,1 title sprintf('%s: collective progress per rank', name) . \
	(more > 0 ? sprintf(' (the first %d collectives; %d more not shown)', n, more) : '') font ',13'
set ylabel 'rank had all its data (us into the iteration)'
set xlabel 'rank'
set grid ytics
set yrange [0:*]
set offsets 0, 0, graph 0.08, 0
set style fill solid 0.8 noborder
set key outside bottom center horizontal box opaque
set bmargin 6

do for [i=1:n] {
	r = value(sprintf('r%d', i))
	nn = value(sprintf('nn%d', i))
	set title value(sprintf('t%d', i))
	set xrange [-0.6:(r > 0 ? r : 1) - 0.4]
	if (r <= 32) {
		set xtics 1 scale 0
	} else {
		set xtics autofreq scale 1
	}
	# few ranks: bars; many: thin bars, then impulses, so each rank stays apart
	if (r <= 256) {
		set boxwidth (r <= 64 ? 0.8 : 0.6) absolute
		bar = 'boxes'
		lastbar = 'boxes'
	} else {
		bar = 'impulses lw 1'
		lastbar = 'impulses lw 3'
	}
	ybase = exists(sprintf('y%d', i)) ? value(sprintf('y%d', i)) : 0
	cmd = sprintf("data index %d using 1:($3 == 1 && $4 == 0 ? $2 : NaN) with %s lc rgb '#3070c0' title '%s'", i - 1, bar, value(sprintf('bt%d', i)))
	if (exists(sprintf('sl%d', i))) {
		cmd = cmd . sprintf(", data index %d using 1:($4 == 1 ? $2 : NaN) with %s lc rgb '#d06020' title '%s'", \
			i - 1, lastbar, value(sprintf('sl%d', i)))
	}
	if (nn > 0) {
		# at the foot of the axis
		cmd = cmd . sprintf(", data index %d using 1:($3 == 0 ? ybase : NaN) with points pt 2 ps 1.5 lw 2 lc rgb '#c03030' title '%d rank%s never had all %s data'", \
			i - 1, nn, nn == 1 ? '' : 's', nn == 1 ? 'its' : 'their')
	}
	if (exists(sprintf('l%d', i))) {
		cmd = cmd . sprintf(", %g with lines lw 1.5 dt 2 lc rgb '#208020' title '%s'", \
			value(sprintf('l%d', i)), value(sprintf('ll%d', i)))
	}
	if (exists(sprintf('y%d', i))) {
		set yrange [value(sprintf('y%d', i)):*]
		set label 2 sprintf('y axis from %g us', value(sprintf('y%d', i))) at graph 0, graph 0 offset 0,-2.5 left
	}
	if (nn >= r) {
		set label 1 'no rank had all its data' at graph 0.5, 0.5 center
		set yrange [0:1]
	}
	eval('plot ' . cmd)
	unset label 1
	unset label 2
	set yrange [0:*]
}
unset multiplot
