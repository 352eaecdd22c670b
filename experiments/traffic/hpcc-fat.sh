#!/bin/sh
# Writes, in HPCC ns-3's topology format (simulation/mix/fat.txt of
# alibaba-edu/High-Precision-Congestion-Control, the 320-host fat-tree of
# the HPCC paper), the fabric of experiments/traffic/hpcc-websearch.yaml:
#   nodes 0..319    hosts, 16 a ToR, 100 Gb/s
#   nodes 320..339  20 ToRs; ToR t has hosts 16t..16t+15 and sits in pod t/4
#   nodes 340..359  20 aggregation switches, 4 a pod; ToRs and aggs of a pod
#                   are fully meshed at 400 Gb/s
#   nodes 360..375  16 cores; agg j of every pod (j = 0..3) reaches cores
#                   360+4j..363+4j at 400 Gb/s
# every link 1 us (1000ns), error rate 0: 376 nodes, 56 switches, 480 links,
# in fat.txt's order of lines.
# usage: experiments/traffic/hpcc-fat.sh > experiments/traffic/hpcc-fat.txt
set -eu
hosts_per_tor=16
tors=20
pods=5
per_pod=4 # ToRs and aggs in a pod, and cores an agg reaches
hosts=$((hosts_per_tor * tors))
tor0=$hosts
agg0=$((tor0 + tors))
core0=$((agg0 + pods * per_pod))
cores=$((per_pod * per_pod))
nodes=$((core0 + cores))
switches=$((nodes - hosts))
links=$((hosts + tors * per_pod + pods * per_pod * per_pod))

echo "$nodes $switches $links"
s=$tor0
line=$s
while [ $((s += 1)) -lt $nodes ]; do
	line="$line $s"
done
echo "$line"
h=0
while [ $h -lt $hosts ]; do
	echo "$h $((tor0 + h / hosts_per_tor)) 100Gbps 1000ns 0.000000"
	h=$((h + 1))
done
t=0
while [ $t -lt $tors ]; do
	a=0
	while [ $a -lt $per_pod ]; do
		echo "$((tor0 + t)) $((agg0 + t / per_pod * per_pod + a)) 400Gbps 1000ns 0.000000"
		a=$((a + 1))
	done
	t=$((t + 1))
done
g=0
while [ $g -lt $((pods * per_pod)) ]; do
	c=0
	while [ $c -lt $per_pod ]; do
		echo "$((agg0 + g)) $((core0 + g % per_pod * per_pod + c)) 400Gbps 1000ns 0.000000"
		c=$((c + 1))
	done
	g=$((g + 1))
done
