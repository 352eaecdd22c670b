# The DCQCN fluid model beside the packet model: for each bottleneck, the
# queue against time (the fixed point dashed) and the rate of a flow.
# `rocesim plot OUTDIR` prepares the data and runs this.
#
# Variables (gnuplot -e):
#   out, term       output file; 'png' (pngcairo when available) or 'svg'
#   name            scenario name
#   xmax_ms         end of the time axis (ms): the fluid model's run
#   n, more         bottlenecks drawn (two panels each); those left out
#   packet          1 when a packet run's timeseries.csv was beside fluid.json
#   portI, flowsI   bottleneck I's port and its number of flows
#   stateI          'converges' or 'oscillates: amplitude .., period ..'
#   fixqI, fixrI    its fixed point: queue (KB), rate per flow (Gb/s); optional
#   qtopI, rtopI    top of the queue (KB) and rate axes, 0: gnuplot's own; set
#                   when the start's peak would flatten the settled part
#   qpeakI          the largest queue (KB), said when it is off the scale
#   fqI, frI        files of "time_ms value": the fluid queue (KB) and Rc (Gb/s)
#   pqI, prI        the same of the packet model (the port's queue; the mean
#                   Rc of its QPs), or '' when the run has none
if (!exists("term")) term = 'png'
np = n > 0 ? n : 1
h = 100 + 330 * 2 * np
if (term eq 'svg') {
	set terminal svg size 1400,h dynamic noenhanced font 'sans,12' background rgb 'white'
} else {
	if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {
		set terminal pngcairo size 1400,h noenhanced font 'sans,10'
	} else {
		set terminal png size 1400,h noenhanced
	}
}
set output out

set style line 1 lc rgb '#1f5fbf' lw 2            # fluid model
set style line 2 lc rgb '#e07020' lw 1.5          # packet model
set style line 3 lc rgb '#303030' lw 1.5 dt 2     # fixed point

# per bottleneck two rows (queue, rate), two columns: the whole run, and
# its last fifth drawn wider so that an oscillation shows its shape
set multiplot layout 2 * np, 2 rowsfirst title sprintf('%s: DCQCN fluid model', name) . \
	(packet ? ' beside the packet model' : '') . \
	(more > 0 ? sprintf(' (the first %d bottlenecks; %d more not shown)', n, more) : '') font ',13'
set grid
set offsets 0, 0, graph 0.05, 0
set xlabel 'time (ms)'
set lmargin 10
set rmargin 3

do for [i=1:n] {
	fq = value(sprintf('fq%d', i))
	fr = value(sprintf('fr%d', i))
	pq = value(sprintf('pq%d', i))
	pr = value(sprintf('pr%d', i))
	qtop = value(sprintf('qtop%d', i))
	rtop = value(sprintf('rtop%d', i))
	qpeak = value(sprintf('qpeak%d', i))
	qcmd = "fq using 1:2 with lines ls 1 title 'fluid model'"
	if (pq ne '') {
		qcmd = qcmd . ", pq using 1:2 with steps ls 2 title 'packet model'"
	}
	if (exists(sprintf('fixq%d', i))) {
		q = value(sprintf('fixq%d', i))
		qcmd = qcmd . sprintf(", %g with lines ls 3 title 'fixed point %.1f KB'", q, q)
	}
	rcmd = "fr using 1:2 with lines ls 1 title 'fluid model Rc'"
	if (pr ne '') {
		rcmd = rcmd . ", pr using 1:2 with steps ls 2 title 'packet model, mean Rc of the QPs'"
	}
	if (exists(sprintf('fixr%d', i))) {
		r = value(sprintf('fixr%d', i))
		rcmd = rcmd . sprintf(", %g with lines ls 3 title 'fixed point %.2f Gb/s'", r, r)
	}
	do for [row=0:1] {
		do for [z=0:1] {
			set xrange [z ? 0.8 * xmax_ms : 0:xmax_ms]
			if (z) {
				set key inside right top box opaque
			} else {
				unset key
			}
			if (row == 0) {
				set title (z ? sprintf('the last fifth: the fluid model %s', value(sprintf('state%d', i))) : \
					sprintf('%s, %d flows: egress queue', value(sprintf('port%d', i)), value(sprintf('flows%d', i))) . \
					(qtop > 0 ? sprintf(' (the start peaks at %.0f KB, off the scale)', qpeak) : ''))
				set ylabel 'queue (KB)'
				set yrange [0:(qtop > 0 ? qtop : 1)]
				if (qtop <= 0) {
					set yrange [0:*]
				}
				eval('plot ' . qcmd)
			} else {
				set title 'the rate of a flow' . (z ? ', the last fifth' : '')
				set ylabel 'rate (Gb/s)'
				set yrange [0:(rtop > 0 ? rtop : 1)]
				if (rtop <= 0) {
					set yrange [0:*]
				}
				eval('plot ' . rcmd)
			}
		}
	}
}
if (n == 0) {
	set label 1 'fluid.json has no bottleneck' at graph 0.5, 0.5 center
	unset key
	plot NaN notitle
}
unset multiplot
