# Egress queues and ingress PG occupancy over time on a run's hottest
# switch ports: the data files are prepared by `rocesim plot OUTDIR`.
#
# Variables (gnuplot -e):
#   out, term       output file; 'png' (pngcairo when available) or 'svg'
#   name, xmax      scenario name; end of the run (us)
#   unit, scale     'KB' and 1e3 or 'MB' and 1e6: bytes are divided by scale
#   qdata, qn       egress queues: one block per series (time_us bytes),
#                   series separated by two blank lines; qn series
#   qt1 .. qtN      title of each egress series
#   pgdata, pgn     ingress PGs: blocks of (time_us pg_bytes headroom_bytes)
#   pgt1 .. pgtN    title of each ingress series
#   hdrm            1 when some PG used headroom (draw it dashed)
#   ntop            how many ports were asked for
#   kmin, kmax      ECN thresholds in bytes (optional)
#   xoff            static PFC XOFF threshold in bytes (optional)
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

set multiplot layout 2,1 title sprintf('%s: switch buffer occupancy on the %d hottest ports', name, ntop) font ',13'
set grid
set xrange [0:xmax]
set yrange [0:*]
set xlabel 'time (us)'
set key outside right top box opaque
set lmargin 12
set rmargin 34
set style line 101 lc rgb '#d08000' lw 1.5 dt 2
set style line 102 lc rgb '#c00000' lw 1.5 dt 2
set style line 103 lc rgb '#7000a0' lw 1.5 dt 4

# egress queues, with the ECN marking thresholds
set title 'egress queue depth (by port and priority)'
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
if (cmd eq '') {
	set label 1 'no egress queue built up' at graph 0.5, 0.5 center
	set yrange [0:1]
	cmd = 'NaN notitle'
}
eval('plot ' . cmd)
unset label 1
set yrange [0:*]

# ingress priority groups, with the XOFF threshold
set title 'ingress PG occupancy (by port and priority)' . (hdrm ? ': dashed, the part in headroom' : '')
set ylabel sprintf('held (%s)', unit)
cmd = ''
if (pgn > 0) {
	cmd = sprintf("for [i=1:%d] pgdata index (i-1) using 1:($2/scale) with steps lw 2 lc i title value(sprintf('pgt%%d', i))", pgn)
	if (hdrm) {
		cmd = cmd . sprintf(", for [i=1:%d] pgdata index (i-1) using 1:($3/scale) with steps lw 1 dt 2 lc i notitle", pgn)
	}
}
if (exists("xoff")) {
	cmd = cmd . (cmd eq '' ? '' : ', ') . sprintf("%g with lines ls 103 title 'PFC XOFF %g %s'", xoff / scale, xoff / scale, unit)
}
if (cmd eq '') {
	set label 1 'no ingress PG held bytes' at graph 0.5, 0.5 center
	set yrange [0:1]
	cmd = 'NaN notitle'
}
eval('plot ' . cmd)
unset multiplot
