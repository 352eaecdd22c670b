# One metric of a sweep against its first axis: the mean over the seeds at
# each point, one line per value of the other axes (and per variant), as
# error bars the 95% confidence interval of the mean with 3 seeds or more,
# the lowest and highest seed with 2. `rocesim plot SWEEPDIR` prepares the
# data and runs this.
#
# Variables (gnuplot -e):
#   out, term       output file; 'png' (pngcairo when available) or 'svg'
#   name            scenario name
#   metric, ylabel  the metric (a column of summary.csv) and its axis label
#   yscale          the values are divided by it (1e6 for MB, ...)
#   ypos            1: no value is below 0 (the y axis stops at 0)
#   ylo, yhi        the y range (in the scaled unit): the seeds' values and a
#                   margin; a wider interval is cut at the frame
#   xlabel          the first axis (the key swept)
#   nx              its number of values; xv1..xvN their places on the x axis,
#                   xl1..xlN their labels (in units: "26.7 KB")
#   logx            1: log scale on x
#   data, lines     data file: one block per line of "x mean ci95 min max" rows,
#                   blocks apart by two blank lines
#   t1..tN          the title of each line ('' when there is only one)
#   keytitle        what the titles are values of
#   seeds           seeds per point: error bars when more than one
if (!exists("term")) term = 'png'
if (term eq 'svg') {
	set terminal svg size 1000,600 dynamic noenhanced font 'sans,12' background rgb 'white'
} else {
	if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {
		set terminal pngcairo size 1000,600 noenhanced font 'sans,10'
	} else {
		set terminal png size 1000,600 noenhanced
	}
}
set output out

# each line of the title cut to what the picture holds (long keys, names)
fit(s, n) = strlen(s) > n ? s[1:n - 1] . '...' : s
set title sprintf("%s\n%s\n%s", fit(sprintf('%s against %s', metric, xlabel), 90), fit(name, 100), \
	seeds > 2 ? sprintf('mean over %d seeds, bars: 95%% confidence interval of the mean', seeds) \
	: seeds == 2 ? 'mean over 2 seeds, bars: the lowest and highest seed' \
	: 'one seed per point') font ',12'
set xlabel xlabel
set ylabel ylabel
set grid
if (logx) {
	set logscale x
}
set xtics scale 1,0 ()
do for [i=1:nx] {
	set xtics add (value(sprintf('xl%d', i)) value(sprintf('xv%d', i)))
}
if (nx > 8) {
	set xtics rotate by -30
}
set autoscale xfix
set offsets graph 0.04, graph 0.04, 0, 0
if (exists("yhi") && yhi > ylo) {
	set yrange [ylo:yhi]
} else {
	if (ypos) {
		set yrange [0<*:*]
	}
}
if (lines > 1 || t1 ne '') {
	# the key's box is as wide as its entries: widen it to hold its title
	tmax = 0
	do for [i=1:lines] {
		tlen = strlen(value(sprintf('t%d', i)))
		tmax = tlen > tmax ? tlen : tmax
	}
	kw = strlen(keytitle) - tmax - 5
	set key outside right top vertical Left reverse box title keytitle width (kw > 0 ? kw : 0)
} else {
	unset key
}

# with error bars, the lines are set a little apart on x so that their bars
# do not hide each other (by 1% of the axis between neighbours)
xlo = xv1
xhi = xv1
do for [i=2:nx] {
	xlo = value(sprintf('xv%d', i)) < xlo ? value(sprintf('xv%d', i)) : xlo
	xhi = value(sprintf('xv%d', i)) > xhi ? value(sprintf('xv%d', i)) : xhi
}
step = (logx ? log(xhi / xlo) : xhi - xlo) * 0.01
shift(x, i) = logx ? x * exp(step * (i - (lines + 1) / 2.0)) : x + step * (i - (lines + 1) / 2.0)

if (seeds > 2) {
	plot for [i=1:lines] data index (i - 1) using (shift($1, i)):($2 / yscale):($3 / yscale) \
		with yerrorlines lw 2 pt 7 ps 1.1 title value(sprintf('t%d', i))
} else {
if (seeds == 2) {
	plot for [i=1:lines] data index (i - 1) \
		using (shift($1, i)):($2 / yscale):($4 / yscale):($5 / yscale) \
		with yerrorlines lw 2 pt 7 ps 1.1 title value(sprintf('t%d', i))
} else {
	plot for [i=1:lines] data index (i - 1) using 1:($2 / yscale) \
		with linespoints lw 2 pt 7 ps 1.1 title value(sprintf('t%d', i))
}
}
