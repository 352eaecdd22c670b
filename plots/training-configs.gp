# Tokens/s of one training scenario under several switch configurations
# (experiments/training/llama70b-ecn.sh: PFC alone, the production ECN
# ladder, the thresholds `rocesim tune` found): one bar a configuration,
# its value written above it.
#
# Variables (gnuplot -e):
#   out, term       output file; 'png' (pngcairo when available) or 'svg'
#   name            scenario name
#   data            "label mean_tokens_per_s lowest highest iteration_ms" lines,
#                   one a configuration (the label without spaces)
if (!exists("term")) term = 'png'
if (term eq 'svg') {
	set terminal svg size 800,480 dynamic noenhanced font 'sans,12' background rgb 'white'
} else {
	if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {
		set terminal pngcairo size 800,480 noenhanced font 'sans,10'
	} else {
		set terminal png size 800,480 noenhanced
	}
}
set output out
set title sprintf('%s: tokens/s a configuration (seeds 1 and 2, packet level)', name) font ',12'
set ylabel 'tokens/s'
set yrange [0:*]
set style fill solid 0.8 border -1
set boxwidth 0.6
set grid ytics
set xtics nomirror
unset key
plot data using 0:2:xtic(1) with boxes lc rgb '#4477aa', \
     '' using 0:2:3:4 with yerrorbars lc rgb 'black' pt -1, \
     '' using 0:4:(sprintf('%.0f (%.0f ms)', $2, $5)) with labels offset 0,1 notitle
