# Egress queues and ingress PG occupancy over time on a run's hottest
# switch ports. `rocesim plot OUTDIR` prepares the data and runs this.
#
# Variables (gnuplot -e):
#   out, term       output file; 'png' (pngcairo when available) or 'svg'
#   name, xmax      scenario name; end of the run (us)
#   ntop            how many ports were asked for
#   unit, scale     'KB' and 1e3 or 'MB' and 1e6: bytes are divided by scale
#   qdata, qn       egress queue bytes: qn blocks of "time_us bytes" lines,
#                   one per port and priority, apart by two blank lines
#   qt1 .. qtN      the title of each egress block
#   pgdata, pgn     ingress PG bytes (min + shared + headroom), as above
#   hrdata          the headroom part of each PG block
#   pgt1 .. pgtN    the title of each PG block
#   hdrm            1 when some PG used headroom (drawn dashed)
#   kmin, kmax      ECN marking thresholds in bytes (optional)
#   xoff            static PFC XOFF threshold in bytes (optional)
#   nk, kminI, kmaxI, nkwhoI
#                   instead of kmin and kmax when the ports shown have
#                   different ones (a config per switch or port): nk sets,
#                   each with the ports it is for ("leaf0:h1 +2")
#   nx, xoffI, nxwhoI
#                   the same for xoff
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
if (!exists("hdrm")) hdrm = 0

# the key is outside on the right: make room for the longest title, the
# same on both panels so that their time axes line up
kw = 16
do for [i=1:qn] {
	kw = strlen(value(sprintf('qt%d', i))) > kw ? strlen(value(sprintf('qt%d', i))) : kw
}
do for [i=1:pgn] {
	kw = strlen(value(sprintf('pgt%d', i))) > kw ? strlen(value(sprintf('pgt%d', i))) : kw
}

set multiplot layout 2,1 title sprintf('%s: switch buffers on the hottest ports (top %d by peak)', name, ntop) font ',13'
set grid
set xrange [0:xmax]
set yrange [0:*]
set offsets 0, 0, graph 0.05, 0
set xlabel 'time (us)'
set key outside right top box opaque
set lmargin 12
set rmargin kw + 10
set style line 101 lc rgb '#909090' lw 1.5 dt 2
set style line 102 lc rgb '#404040' lw 1.5 dt 2
set style line 103 lc rgb '#404040' lw 1.5 dt 4

# egress queues, with the ECN marking thresholds
set title 'egress queue depth'
set ylabel sprintf('queued (%s)', unit)
cmd = ''
if (qn > 0) {
	cmd = sprintf("for [i=1:%d] qdata index (i-1) using 1:($2/scale) with steps lw 2 lc i title value(sprintf('qt%%d', i))", qn)
}
if (exists("kmin")) {
	cmd = cmd . (cmd eq '' ? '' : ', ') . sprintf("%g with lines ls 101 title 'ECN kmin %g %s'", kmin / scale, kmin / scale, unit)
}
if (exists("kmax")) {
	cmd = cmd . (cmd eq '' ? '' : ', ') . sprintf("%g with lines ls 102 title 'ECN kmax %g %s'", kmax / scale, kmax / scale, unit)
}
if (exists("nk")) {
	do for [k=1:nk] {
		w = value(sprintf('nkwho%d', k))
		if (value(sprintf('kmin%d', k)) >= 0) {
			cmd = cmd . (cmd eq '' ? '' : ', ') . sprintf("%g with lines lc %d lw 1.5 dt 2 title 'ECN kmin %g %s (%s)'", value(sprintf('kmin%d', k)) / scale, 100 + k, value(sprintf('kmin%d', k)) / scale, unit, w)
		}
		if (value(sprintf('kmax%d', k)) >= 0) {
			cmd = cmd . (cmd eq '' ? '' : ', ') . sprintf("%g with lines lc %d lw 1.5 dt 4 title 'ECN kmax %g %s (%s)'", value(sprintf('kmax%d', k)) / scale, 100 + k, value(sprintf('kmax%d', k)) / scale, unit, w)
		}
	}
}
if (cmd eq '') {
	set label 1 'no egress queue built up' at graph 0.5, 0.5 center
	set yrange [0:1]
	unset key
	cmd = 'NaN notitle'
}
eval('plot ' . cmd)
unset label 1
set yrange [0:*]
set key outside right top box opaque

# ingress priority groups, with the XOFF threshold
set title 'ingress PG occupancy' . (hdrm ? ' (dashed: the part in headroom, after XOFF)' : '')
set ylabel sprintf('held (%s)', unit)
cmd = ''
if (pgn > 0) {
	cmd = sprintf("for [i=1:%d] pgdata index (i-1) using 1:($2/scale) with steps lw 2 lc i title value(sprintf('pgt%%d', i))", pgn)
	if (hdrm) {
		cmd = cmd . sprintf(", for [i=1:%d] hrdata index (i-1) using 1:($2/scale) with steps lw 1.5 dt 2 lc i notitle", pgn)
	}
}
if (exists("xoff")) {
	cmd = cmd . (cmd eq '' ? '' : ', ') . sprintf("%g with lines ls 103 title 'PFC XOFF %g %s'", xoff / scale, xoff / scale, unit)
}
if (exists("nx")) {
	do for [k=1:nx] {
		if (value(sprintf('xoff%d', k)) >= 0) {
			cmd = cmd . (cmd eq '' ? '' : ', ') . sprintf("%g with lines lc %d lw 1.5 dt 4 title 'PFC XOFF %g %s (%s)'", value(sprintf('xoff%d', k)) / scale, 100 + k, value(sprintf('xoff%d', k)) / scale, unit, value(sprintf('nxwho%d', k)))
		}
	}
}
if (cmd eq '') {
	set label 1 'no ingress PG held bytes' at graph 0.5, 0.5 center
	set yrange [0:1]
	unset key
	cmd = 'NaN notitle'
}
eval('plot ' . cmd)
unset multiplot
