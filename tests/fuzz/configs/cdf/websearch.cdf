# WebSearch flow sizes: Alizadeh et al., "Data Center TCP (DCTCP)", SIGCOMM 2010,
# as HPCC's traffic_gen ships them (WebSearch_distribution.txt).
# size_bytes cumulative_percent, linear between points
0 0
10000 15
20000 20
30000 30
50000 40
80000 53
200000 60
1000000 70
2000000 80
5000000 90
10000000 97
30000000 100
