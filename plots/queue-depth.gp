# Egress queue depth over time of one port, from a run's timeseries.csv.
# usage: gnuplot -e "dir='out/incast-8to1'; port='sw0:h8'" plots/queue-depth.gp
# writes DIR/queue-<port>.png (`rocesim plot OUTDIR` draws the hottest
# ports, PFC, DCQCN and flow pictures of a run in one go).
if (!exists("dir")) dir = 'out/incast-8to1'
if (!exists("port")) port = 'sw0:h8'
set datafile separator ','
if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {
	set terminal pngcairo size 900,500 noenhanced
} else {
	set terminal png size 900,500 noenhanced
}
set output sprintf('%s/queue-%s.png', dir, port)
set title sprintf('egress queue %s', port)
set xlabel 'time (us)'
set ylabel 'queued (MB)'
set grid
set key off
plot sprintf('%s/timeseries.csv', dir) every ::1 \
     using 1:(strcol(2) eq port ? $4 / 1e6 : 1/0) with steps lw 2
