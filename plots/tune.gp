# The points `rocesim tune` evaluated: `rocesim plot TUNEDIR` prepares the
# data and runs this once per picture.
#
#   mode 1  tune.png with one varied key: a metric (the objective, or the
#           first constraint's metric when the objective is the key) against
#           the key, the constraints' limits on that metric as dashed lines
#   mode 2  tune.png with two keys or more: the first two keys as x and y, a
#           dot per point, the search path through the incumbents in order
#   mode 3  tune-front.png: objective 1 against objective 2 for every point
#           that meets the constraints, the Pareto front as a line
#
# Variables (gnuplot -e):
#   out, term        output file; 'png' (pngcairo when available) or 'svg'
#   name             the scenario file
#   mode             1, 2 or 3 (above)
#   hl1..hlN, nhl    the title's lines (each fits the width): the scenario and
#                    the problem, the search, what tune chose (the answer and
#                    what it changes from the scenario's own values, or "keep
#                    the current values") and the keys without effect
#   feasible         1: the best point meets every constraint
#   answer, keep     1: tune recommends a point; 1: it keeps the current values
#   colour           mode 2: 1 to colour the points that meet every
#                    constraint by the objective (their third column),
#                    cblo, cbhi, cbscale, cblabel its range, divisor and label
#   constrained      the number of constraints
#   xlabel, ylabel   the axes, with their units
#   xlo, xhi, ylo, yhi, logx, logy, xscale, yscale, xticks, yticks
#                    the ranges (in the axes' units), log scales, what the
#                    data (in the base unit: B, bps, ps, mm) is divided by, and
#                    the ticks of a key's log axis ('"1 KB" 1000, ...'; '':
#                    gnuplot's own)
#   zoom             mode 1: 1 to draw the points nearest the best again, on
#                    a linear axis of their own: zxlo, zxhi, zxscale, zxlabel,
#                    zxstep (between ticks), zylo, zyhi
#   limits           constraint lines: lv1..lvN their values, lt1..ltN text
#   keys             mode 2: the number of varied keys
#   obj1, obj2       mode 3: the objectives
#   dfeas, dinf, dfail, dpath, dbest, dcur and nfeas, ninf, nfail, npath, nbest, ncur
#                    data files and their numbers of lines: the points that
#                    meet every constraint, that break one, that failed ("x y");
#                    the search path ("x y dx dy", an arrow each; mode 3: the
#                    front, "x y"); the point chosen (the answer, the current
#                    values kept, else the best); the scenario's own point
if (!exists("term")) term = 'png'
# what a picture does not have: none of it
do for [v in 'nfeas ninf nfail npath nbest ncur keys zoom limits colour answer keep nhl'] {
	if (!exists(v)) {
		eval(v.' = 0')
	}
}
if (term eq 'svg') {
	set terminal svg size 1000,650 dynamic noenhanced font 'sans,12' background rgb 'white'
} else {
	if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {
		set terminal pngcairo size 1000,650 noenhanced font 'sans,10'
	} else {
		set terminal png size 1000,650 noenhanced
	}
}
set output out

head = mode == 3 ? sprintf("Pareto front of %s and %s\n", obj1, obj2) : ''
do for [i=1:nhl] {
	head = head.(i > 1 ? "\n" : '').value(sprintf('hl%d', i))
}
if (keys > 2) {
	head = head.sprintf("\n(the first 2 of %d keys drawn)", keys)
}
# the panels' height: what the title's lines leave
ph = 0.95 - 0.032 * (nhl + (keys > 2) + (mode == 3))
set xlabel xlabel
set ylabel ylabel
set grid
set format x '%g'
set format y '%g'
set xrange [xlo:xhi]
set yrange [ylo:yhi]

# a key's log axis: ticks that say their unit, from rocesim
if (logx) {
	set logscale x
}
if (logy) {
	set logscale y
}
if (xticks ne '') {
	eval('set xtics ('.xticks.')')
}
if (yticks ne '') {
	eval('set ytics ('.yticks.')')
}
do for [i=1:limits] {
	lv = value(sprintf('lv%d', i))
	set arrow from graph 0, first lv to graph 1, first lv nohead dt 2 lw 1.5 lc rgb '#555555' front
	set label value(sprintf('lt%d', i)) at graph 0.01, first lv offset 0, 0.7 tc rgb '#555555' front
}

# The plot of what there is (pl), and of its key alone (ky): the key is drawn
# once, on a row under the panels, by a last plot that draws nothing else.
xy = "($1 / xs):($2 / yscale)"
sfeas = mode == 3 ? "with points pt 7 ps 1.1 lc rgb '#999999'" : "with points pt 7 ps 1.2 lc rgb '#009e73'"
sinf = "with points pt 2 ps 1.4 lw 2 lc rgb '#d55e00'"
sfail = "with points pt 4 ps 1.3 lw 1.5 lc rgb '#888888'"
sbest = "with points pt 6 ps 3.5 lw 2.5 lc rgb '#000000'"
scur = "with points pt 12 ps 2.6 lw 2 lc rgb '#cc79a7'"
tfeas = constrained > 0 || mode == 3 ? 'meets every constraint' : 'evaluated point'
tbest = answer ? 'answer' : keep ? 'current values kept' : feasible ? 'best' : 'closest'
if (colour) {
	# the points that meet every constraint, coloured by the objective
	sfeas = "with points pt 7 ps 1.6 lc palette"
	set palette defined (0 '#0d0887', 1 '#7e03a8', 2 '#cc4778', 3 '#f89540', 4 '#f0f921')
	set cbrange [cblo:cbhi]
	set cblabel cblabel offset 1.5
	set format cb '%g'
}
pl = ''
ky = ''
if (npath > 0 && mode == 3) {
	pl = pl.", dpath using ".xy." with linespoints lw 2.5 pt 7 ps 1.4 lc rgb '#0072b2'"
	ky = ky.", NaN with linespoints lw 2.5 pt 7 ps 1.4 lc rgb '#0072b2' title 'Pareto front'"
}
if (npath > 0 && mode != 3) {
	pl = pl.", dpath using ".xy.":($3 / xs):($4 / yscale) with vectors head filled size screen 0.012,20 lw 1.5 lc rgb '#0072b2'"
	ky = ky.", NaN with lines lw 1.5 lc rgb '#0072b2' title 'search path'"
}
if (nfail > 0) {
	pl = pl.", dfail using ".xy." ".sfail
	ky = ky.", NaN ".sfail." title 'failed or flows unfinished'"
}
if (ninf > 0) {
	pl = pl.", dinf using ".xy." ".sinf
	ky = ky.", NaN ".sinf." title 'breaks a constraint'"
}
if (nfeas > 0 && colour) {
	pl = pl.", dfeas using ".xy.":($3 / cbscale) ".sfeas
	ky = ky.", NaN with points pt 7 ps 1.6 lc rgb '#7e03a8' title tfeas.', coloured by the objective'"
}
if (nfeas > 0 && !colour) {
	pl = pl.", dfeas using ".xy." ".sfeas
	ky = ky.", NaN ".sfeas." title tfeas"
}
if (ncur > 0) {
	pl = pl.", dcur using ".xy." ".scur
	ky = ky.", NaN ".scur." title 'the scenario''s own values'"
}
if (nbest > 0) {
	pl = pl.", dbest using ".xy." ".sbest
	ky = ky.", NaN ".sbest." title tbest"
}

set multiplot title head font ',12'
unset key
set bmargin 6
set origin 0, 0
set size (zoom ? 0.6 : 1), ph
xs = xscale
eval('plot '.pl[3:])
if (zoom) {
	# the points nearest the best one again, on a linear axis of their own
	set size 0.4, ph
	set origin 0.6, 0
	unset logscale x
	set xtics zxstep
	set xrange [zxlo:zxhi]
	set yrange [zylo:zyhi]
	set xlabel sprintf('%s, near the best point', zxlabel)
	unset ylabel
	xs = zxscale
	eval('plot '.pl[3:])
}
set size 1, 1
set origin 0, 0
unset colorbox
unset border
unset tics
unset xlabel
unset ylabel
unset grid
unset arrow
unset label
unset logscale
set xrange [0:1]
set yrange [0:1]
set key at screen 0.5, 0.01 center bottom horizontal Left reverse samplen 2 width -1
eval('plot '.ky[3:])
unset multiplot
