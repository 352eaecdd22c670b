# Hadoop flow sizes (Roy et al., "Inside the Social Network's (Datacenter) Network", SIGCOMM 2015), as HPCC's traffic_gen ships them: FbHdp_distribution.txt
0 0
1000 50
100000 100
